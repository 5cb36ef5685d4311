"""Question files: the hospital's CSV and JSONL are read as written; every problem names its line."""

from pathlib import Path

import pytest
from pydantic import ValidationError

from api.evaluator.queries import AnswerSpan, EvalQuery, QueryFileError, parse_csv, parse_jsonl, read_queries


def test_csv_splits_relevant_documents_on_semicolons_and_numbers_questions_by_line() -> None:
    text = (
        "question,relevant_documents\n"
        "Hoeveel paracetamol bij kinderen?,DOC-12; pijnbeleid kinderen.pdf\n"
        '"Wanneer CRP, en wanneer PCT?",Infectieparameters\n'
    )

    queries = parse_csv(text)

    assert [query.question for query in queries] == [
        "Hoeveel paracetamol bij kinderen?",
        "Wanneer CRP, en wanneer PCT?",
    ]
    assert queries[0].relevant_documents == ("DOC-12", "pijnbeleid kinderen.pdf")
    assert queries[1].relevant_documents == ("Infectieparameters",)
    assert [query.id for query in queries] == ["line 2", "line 3"]


def test_csv_from_a_spreadsheet_with_byte_order_mark_blank_lines_and_an_id_column(tmp_path: Path) -> None:
    path = tmp_path / "validatie.csv"
    path.write_bytes("\ufeffid,Question,Relevant_Documents\r\nv1,Dosis vancomycine?,A;B;\r\n\r\n".encode())

    (query,) = read_queries(path)

    assert (query.id, query.question, query.relevant_documents) == ("v1", "Dosis vancomycine?", ("A", "B"))


def test_a_quoted_cell_spanning_lines_reports_later_problems_at_their_own_line() -> None:
    text = 'question,relevant_documents\n"Twee\nregels",A\n,B\n'

    with pytest.raises(QueryFileError) as raised:
        parse_csv(text, "test.csv")

    assert raised.value.line == 4
    assert "question is leeg" in str(raised.value)


def test_unclosed_quote_is_malformed_at_the_line_where_the_row_starts() -> None:
    text = 'question,relevant_documents\nEerste vraag,A\n"Niet gesloten,B\nDerde,C\n'

    with pytest.raises(QueryFileError, match=r"regel 3: ongeldige CSV") as raised:
        parse_csv(text, "test.csv")

    assert raised.value.line == 3


def test_a_row_with_too_many_fields_names_its_line_and_the_expected_columns() -> None:
    text = "question,relevant_documents\nGoed,A\nTe veel,A,B\n"

    with pytest.raises(
        QueryFileError, match=r"regel 3: verwacht 2 velden \(question, relevant_documents\), gevonden 3"
    ):
        parse_csv(text)


@pytest.mark.parametrize("question", ["", "   "])
def test_an_empty_question_is_a_validation_error_with_its_line(question: str) -> None:
    with pytest.raises(QueryFileError, match=r"regel 2: question is leeg"):
        parse_csv(f"question,relevant_documents\n{question},A\n")


def test_a_question_without_relevant_documents_is_one_that_no_document_answers() -> None:
    (query,) = parse_csv("question,relevant_documents\nstreefwaarde INR bij mechanische hartklep, ; \n")

    assert (query.question, query.relevant_documents) == ("streefwaarde INR bij mechanische hartklep", ())


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("vraag,documenten\nA,B\n", "de kopregel moet 'question,relevant_documents' zijn"),
        ("question,relevant_documents,extra\nA,B,C\n", "de kopregel moet"),
        ("question,relevant_documents\n", "kopregel maar geen vragen"),
        ("", "de kopregel moet"),
    ],
)
def test_a_file_without_the_expected_header_or_rows_is_refused(text: str, reason: str) -> None:
    with pytest.raises(QueryFileError, match=reason):
        parse_csv(text)


def test_text_that_is_not_utf8_names_the_line_of_the_first_bad_byte(tmp_path: Path) -> None:
    path = tmp_path / "latin1.csv"
    path.write_bytes("question,relevant_documents\nGoed,A\nCaf\u00e9,B\n".encode("latin-1"))

    with pytest.raises(QueryFileError, match=r"regel 3: geen UTF-8"):
        read_queries(path)


def test_jsonl_carries_ids_and_answer_spans_as_chunk_labels() -> None:
    text = (
        '{"id": "q7", "question": "Wat is MTCT?", "relevant_documents": ["630"],'
        ' "answer_spans": [{"document": "630", "start": 370, "end": 455}]}\n'
        "\n"
        '{"question": "Tweede", "relevant_documents": ["12", "13"]}\n'
    )

    first, second = parse_jsonl(text)

    assert first.id == "q7"
    assert first.answer_spans == (AnswerSpan(document="630", start=370, end=455),)
    assert (second.id, second.answer_spans) == ("line 3", ())


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ('{"question": "A", "relevant_documents": ["1"]', "geen geldige JSON"),
        ('["A", "1"]', "verwacht een JSON-object, gevonden list"),
        (
            '{"question": "A", "relevant_documents": ["1"], "answer_spans": [{"document": "2", "start": 0, "end": 4}]}',
            "niet in relevant_documents staan",
        ),
        (
            '{"question": "A", "relevant_documents": ["1"], "answer_spans": [{"document": "1", "start": 5, "end": 5}]}',
            "moet eindigen na zijn begin",
        ),
        ('{"question": "A", "relevant_documents": ["1"], "labels": []}', "labels: Extra inputs"),
    ],
)
def test_bad_jsonl_lines_name_their_line_and_problem(line: str, reason: str) -> None:
    text = '{"question": "Goed", "relevant_documents": ["1"]}\n' + line + "\n"

    with pytest.raises(QueryFileError, match=rf"regel 2: .*{reason}"):
        parse_jsonl(text, "set.jsonl")


def test_other_file_types_are_refused_rather_than_guessed(tmp_path: Path) -> None:
    path = tmp_path / "vragen.xlsx"
    path.write_bytes(b"PK")

    with pytest.raises(QueryFileError, match=r"gebruik \.csv of \.jsonl"):
        read_queries(path)


def test_an_empty_question_given_to_the_library_directly_is_a_422_style_validation_error() -> None:
    with pytest.raises(ValidationError, match="question"):
        EvalQuery(id="1", question=" ", relevant_documents=("A",))


def test_a_semicolon_separated_file_as_dutch_excel_saves_it_is_read_like_a_comma_separated_one() -> None:
    text = (
        "\ufeffquestion;relevant_documents\r\n"
        "Hoeveel paracetamol, en hoe vaak?;pijnbeleid kinderen.pdf\r\n"
        '"Wanneer CRP; wanneer PCT?";"DOC-12;Infectieparameters"\r\n'
    )

    first, second = parse_csv(text.lstrip("\ufeff"), "vragen.csv")

    assert (first.question, first.relevant_documents) == (
        "Hoeveel paracetamol, en hoe vaak?",
        ("pijnbeleid kinderen.pdf",),
    )
    assert (second.question, second.relevant_documents) == (
        "Wanneer CRP; wanneer PCT?",
        ("DOC-12", "Infectieparameters"),
    )


def test_an_unquoted_list_of_documents_in_a_semicolon_file_says_to_quote_it() -> None:
    with pytest.raises(QueryFileError, match=r"vragen.csv, regel 2: verwacht 2 velden .*aanhalingstekens"):
        parse_csv("question;relevant_documents\nDosis?;A.pdf;B.pdf\n", "vragen.csv")


def test_an_optional_answer_column_holds_each_questions_key_phrase_in_csv_and_jsonl() -> None:
    queries = parse_csv(
        "question,relevant_documents,answer\n"
        "hoe lang handen wrijven,handhygiene.pdf,20 tot 30 seconden\n"
        "heparine bij longembolie,,\n"
    )
    lines = parse_jsonl(
        '{"question": "hoe lang handen wrijven", "relevant_documents": ["h"], "answer": "20 s"}\n'
    )

    assert [query.answer for query in queries] == ["20 tot 30 seconden", None]
    assert lines[0].answer == "20 s"
    assert parse_csv("question,relevant_documents\nvraag,doc\n")[0].answer is None
