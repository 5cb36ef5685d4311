"""The API's logic; routes only translate HTTP to these calls and back."""
