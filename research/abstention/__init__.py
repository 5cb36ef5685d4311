"""The abstention study: which retrieval signals and thresholds tell an answerable question from one whose
documents are not indexed (`python -m research.abstention.study`); the chat applies the rule it chose
(`api.chat.abstention`)."""
