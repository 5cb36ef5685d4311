"""The chat: retrieval, knowing when it does not know, the worker pool, answering as a stream of events."""
