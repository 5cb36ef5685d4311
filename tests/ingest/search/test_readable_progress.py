"""Progress a person can read (issue 25 item 5): no INFO line per segment merge, and an embedding ETA that is
right from the start."""

import logging

import pytest

from ingest.embedding import batch_order
from ingest.search.embedded import MERGE_FACTOR, EmbeddedIndex
from tests.ingest.search.test_embedded_index_durability import _fill


def test_segment_merges_are_not_logged_at_info(tmp_path, caplog: pytest.LogCaptureFixture) -> None:
    index = EmbeddedIndex(tmp_path / "index", "model")
    with caplog.at_level(logging.DEBUG, logger="ingest.search.embedded"):
        _fill(index, MERGE_FACTOR * 3)
    index.close()

    merges = [record for record in caplog.records if record.getMessage().startswith("merged ")]
    assert merges, "filling the index merged no segments: the test proves nothing"
    assert all(record.levelno < logging.INFO for record in merges)


def test_chunks_embedded_track_the_work_done_from_the_first_batches() -> None:
    lengths = [200 + (number * 7919) % 1800 for number in range(1000)]
    batches = batch_order(lengths, 32)

    assert sorted(i for batch in batches for i in batch) == list(range(1000))
    assert max(lengths[i] for i in batches[0]) == max(lengths)  # a batch too big for memory fails at once
    total_chunks, total_work = len(lengths), sum(lengths)
    done_chunks = done_work = 0
    for batch in batches[:-1]:
        done_chunks += len(batch)
        done_work += sum(lengths[i] for i in batch)
        if done_chunks >= total_chunks / 10:  # what a progress bar's ETA extrapolates from
            share_of_chunks, share_of_work = done_chunks / total_chunks, done_work / total_work
            assert share_of_work / share_of_chunks < 1.2
