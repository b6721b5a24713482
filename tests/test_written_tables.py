"""A table that records no analysis of its words (Moses ``e f p`` text) meets the index as the table it was
(tablefit.words_for_index): a table clirkit trained and wrote as text gives the runs of its .npz (its stems are
the index's terms, the queries are stemmed to meet its source words); another tool's table of surface words is
analyzed as the index is, and its probabilities merged as the phrase-table reader merges them. Before, both
were matched as written: queries unstemmed against stems, surface words against stems, with exit 0."""

from __future__ import annotations

import pytest

from clirkit import datasets
from clirkit.analysis import Analyzer
from clirkit.cli import main
from clirkit.docpsqsystem import DocPSQ
from clirkit.estimator import Resources
from clirkit.querypsq import QueryPSQ
from clirkit.retrieval.index import Index
from clirkit.systems import DT
from clirkit.tablefit import TableMismatch, words_for_index
from clirkit.translation import load_table, save_table, train_table
from clirkit.translation.table import NULL
from clirkit.translation.weighted import weighted_table


@pytest.fixture(scope="module")
def nave(mini):
    """(index of the slice's Spanish verses, stemmed; its parallel pairs; its test topics)."""
    c = datasets.load(str(mini))
    docids, texts = c.documents()
    es = Analyzer("es")
    index = Index.from_tokens(list(docids), es.tokenize_many(list(texts)), es)
    return index, c.parallel(), c.queries("test")


def trained(pairs, source_lang, target_lang, *, stemmer="snowball"):
    src, tgt = Analyzer(source_lang, stemmer=stemmer), Analyzer(target_lang, stemmer=stemmer)
    left, right = pairs if source_lang == "en" else pairs[::-1]
    return train_table(src.tokenize_many(list(left)), tgt.tokenize_many(list(right)), src, tgt)


def as_text(table, tmp_path, name):
    path = tmp_path / name
    save_table(table, path)
    return load_table(path)


def rows(run):
    return list(zip(run.qids.tolist(), run.docids.tolist(), run.scores.tolist()))


@pytest.mark.parametrize("system", [DT, QueryPSQ])
def test_a_trained_table_written_as_text_gives_the_runs_of_its_npz(nave, tmp_path, system):
    index, pairs, topics = nave
    table = trained(pairs, "en", "es")
    text = as_text(table, tmp_path, "en-es.lex.gz")
    assert "source_analyzer" not in text.params
    want = rows(system(source_lang="en").fit(Resources(index=index, table=table)).search(topics))
    assert rows(system(source_lang="en").fit(Resources(index=index, table=text)).search(topics)) == want


def test_a_reverse_table_written_as_text_translates_the_documents_as_its_npz(nave, tmp_path):
    index, pairs, topics = nave
    table = trained(pairs, "es", "en")
    text = as_text(table, tmp_path, "es-en.lex.gz")
    want = rows(DocPSQ(source_lang="en").fit(Resources(index=index, reverse_table=table)).search(topics))
    assert rows(DocPSQ(source_lang="en").fit(Resources(index=index, reverse_table=text)).search(topics)) == want


def test_surface_words_are_analyzed_as_the_index_and_merged_as_the_phrase_table_reader_merges(nave, tmp_path):
    index, pairs, _ = nave
    surface = as_text(trained(pairs, "en", "es", stemmer=None), tmp_path, "surface.lex.gz")
    made = words_for_index(surface, index, "target", other_lang="en")
    assert made.params["words_read_as"] == "words"
    entries = [  # (the oracle would lowercase Model 1's NULL, which stays as it is)
        (f, e, p)
        for f, row in zip(surface.source_vocab.tolist(), surface.probs)
        for e, p in zip(surface.target_vocab[row.indices].tolist(), row.data.tolist())
        if f != NULL
    ]
    oracle = weighted_table(
        entries, source_analyzer=Analyzer("en", stemmer=None), target_analyzer=Analyzer("es"), multiword_source="phrase"
    )
    kept = made.source_vocab != NULL
    assert made.source_vocab[kept].tolist() == oracle.source_vocab.tolist()
    assert made.target_vocab.tolist() == oracle.target_vocab.tolist()
    assert abs(made.probs[kept] - oracle.probs).max() < 1e-12
    # the queries are analyzed as its source words were: lowercased, not stemmed (rows are not averaged)
    assert made.params["source_analyzer"] == Analyzer("en", stemmer=None).to_dict()


def test_surface_words_find_what_they_missed(nave, tmp_path):
    index, pairs, topics = nave
    surface = as_text(trained(pairs, "en", "es", stemmer=None), tmp_path, "surface.lex.gz")
    run = DT(source_lang="en").fit(Resources(index=index, table=surface)).search(topics)
    stems = DT(source_lang="en").fit(Resources(index=index, table=trained(pairs, "en", "es"))).search(topics)
    assert len(run) > 0.9 * len(stems)


def test_a_table_that_records_its_analysis_is_taken_as_it_is(nave):
    index, pairs, _ = nave
    table = trained(pairs, "en", "es")
    assert words_for_index(table, index, "target", other_lang="en") is table


def test_the_reading_is_said_on_stderr(tmp_path, capsys):
    docs = tmp_path / "docs.tsv"
    docs.write_text("d1\tlas casas blancas\nd2\tel perro negro\n", encoding="utf-8")
    assert main(["index", str(docs), "-o", str(tmp_path / "ix.npz"), "--lang", "es", "-q"]) == 0
    (tmp_path / "q.tsv").write_text("q1\thouses\n", encoding="utf-8")
    (tmp_path / "t.lex").write_text("casas houses 0.6\nblancas houses 0.4\nperro dog 1.0\n", encoding="utf-8")
    out = tmp_path / "dt.run"
    args = ["dt", "--index", str(tmp_path / "ix.npz"), "--queries", str(tmp_path / "q.tsv"), "--table"]
    assert main([*args, str(tmp_path / "t.lex"), "--source-lang", "en", "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "the table records no analysis of its words: its target words are read as words analyzed" in err
    assert out.read_text().split()[2] == "d1"  # houses -> casas -> cas, which was no index term as written


@pytest.fixture
def small(tmp_path):
    """A stemmed Spanish index of three documents and English queries, as files."""
    docs = tmp_path / "docs.tsv"
    docs.write_text("d1\tlas aguas del mar\nd2\tel perro negro\nd3\tla casa blanca no\n", encoding="utf-8")
    assert main(["index", str(docs), "-o", str(tmp_path / "ix.npz"), "--lang", "es", "-q"]) == 0
    (tmp_path / "q.tsv").write_text("q1\twaters\nq2\tblack dogs\n", encoding="utf-8")
    return tmp_path


def search(folder, verb, *tables, more=()):
    out = folder / f"{verb}.run"
    args = [verb, "--index", str(folder / "ix.npz"), "--queries", str(folder / "q.tsv"), "--source-lang", "en"]
    given = [a for t, flag in zip(tables, ("--table", "--table2")) for a in (flag, str(t))]
    status = main([*args, *given, *more, "-o", str(out), "-q"])
    return status, out.read_text() if status == 0 else None


def test_a_one_line_table_of_words_is_analyzed_on_both_sides(small):
    (small / "t.lex").write_text("aguas waters 1.0\n", encoding="utf-8")
    status, run = search(small, "dt", small / "t.lex")
    assert status == 0 and run.split()[:3] == ["q1", "Q0", "d1"]  # waters -> water -> agu, d1's term


def test_capitalised_words_meet_the_lowercased_queries(small):
    (small / "t.lex").write_text("perro Dogs 0.7\nnegro Black 1.0\ncan Dogs 0.3\n", encoding="utf-8")
    status, run = search(small, "dt", small / "t.lex")
    assert status == 0 and ["q2", "Q0", "d2"] == run.split()[:3]


def test_a_second_text_table_of_words_counts(small):
    (small / "t1.lex").write_text("casa waters 1.0\nperro dogs 1.0\n", encoding="utf-8")
    (small / "t2.lex").write_text("aguas waters 1.0\nmar waters 0.5\n", encoding="utf-8")
    _, alone = search(small, "psq", small / "t1.lex", more=["--translate", "queries"])
    _, both = search(
        small, "psq", small / "t1.lex", small / "t2.lex", more=["--translate", "queries", "--lambda", "0.01"]
    )
    assert alone != both and [line.split()[2] for line in both.splitlines() if line.startswith("q1")][0] == "d1"


def test_a_table_of_other_languages_is_refused_whichever_side(small, capsys):
    english = ["house", "water", "dog", "black", "white", "sea", "the", "of", "with", "no", "big", "small"]
    cyrillic = ["дом", "вода", "собака", "чёрный", "белый", "море", "это", "из", "с", "нет", "большой", "малый"]
    (small / "en-ru.lex").write_text("".join(f"{r} {e} 1.0\n" for e, r in zip(english, cyrillic)), encoding="utf-8")
    for verb in ("dt", "psq"):
        status, _ = search(small, verb, small / "en-ru.lex")
        err = capsys.readouterr().err
        assert status == 2 and "of the table's target words are the index's terms" in err, err
        assert err.count("\n") == 1


def test_ttable_show_finds_a_text_tables_stem_given_its_language(nave, tmp_path, capsys):
    _, pairs, _ = nave
    save_table(trained(pairs, "en", "es"), tmp_path / "en-es.lex.gz")
    assert main(["ttable", "show", str(tmp_path / "en-es.lex.gz"), "Lights", "--source-lang", "en"]) == 0
    assert capsys.readouterr().out.splitlines()[0].startswith("Lights -> light\t(")
    assert main(["ttable", "show", str(tmp_path / "en-es.lex.gz"), "Lights"]) == 0
    assert "--source-lang LANG reads its words as DT and PSQ do" in capsys.readouterr().out


def test_ttable_show_reads_a_hand_written_table_as_dt_does(small, capsys):
    """(An independent re-check, F: show looked a word up as written, lowercased and stemmed; DT reads a few
    hand-written words unstemmed and lowercased: show said "house" passed through while DT translated it, and
    "dogs" translated while DT passed it through.)"""
    (small / "t.lex").write_text("casa House 1.0\nperro dog 1.0\n", encoding="utf-8")
    (small / "hd.tsv").write_text("h\thouse\nd\tdogs\n", encoding="utf-8")
    args = ["dt", "--index", str(small / "ix.npz"), "--queries", str(small / "hd.tsv"), "--source-lang", "en"]
    assert main([*args, "--table", str(small / "t.lex"), "-o", str(small / "hd.run")]) == 0
    translated = {line.split()[0] for line in (small / "hd.run").read_text(encoding="utf-8").splitlines()}
    capsys.readouterr()
    assert main(["ttable", "show", str(small / "t.lex"), "house", "dogs", "--source-lang", "en"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert translated == {"h"}
    assert out == [
        "house\t(1 translation)",
        "  casa\t1.000000",
        "dogs\t(no translations in the table: DT and PSQ pass it through unchanged)",
    ]


def test_a_trained_table_over_a_small_index_gives_the_runs_of_its_npz(nave, tmp_path):
    """(The stems of a table meet few terms of a small index: read by how many met it, they were taken for words
    and stemmed again, PSQ AP .158 -> .109 over 500 documents, an independent re-check.)"""
    index, pairs, topics = nave
    table = trained(pairs, "en", "es")
    es = Analyzer("es")
    small = Index.from_tokens([f"d{i}" for i in range(40)], es.tokenize_many(list(pairs[1][:40])), es)
    text = as_text(table, tmp_path, "en-es.lex.gz")
    for system in (DT, QueryPSQ):
        want = rows(system(source_lang="en").fit(Resources(index=small, table=table)).search(topics))
        assert rows(system(source_lang="en").fit(Resources(index=small, table=text)).search(topics)) == want


def test_a_table_whose_words_meet_few_index_terms_is_said(small, capsys):
    """(An English->Russian table over Spanish documents, translating them: 1 of its 12 English words is a Spanish
    index term. A table of another domain over a small index may meet as few, so it is said, not refused.)"""
    english = ["house", "water", "dog", "black", "white", "sea", "the", "of", "with", "no", "big", "small"]
    cyrillic = ["дом", "вода", "собака", "чёрный", "белый", "море", "это", "из", "с", "нет", "большой", "малый"]
    (small / "en-ru.lex").write_text("".join(f"{r} {e} 1.0\n" for e, r in zip(english, cyrillic)), encoding="utf-8")
    args = ["psq", "--index", str(small / "ix.npz"), "--queries", str(small / "q.tsv"), "--source-lang", "ru"]
    args += ["--table", str(small / "en-ru.lex"), "--translate", "documents", "-o", str(small / "r.run")]
    assert main(args) == 0
    assert "note: only 1 of 12 of the table's source words are the index's terms" in capsys.readouterr().err


def test_a_trained_table_over_a_chinese_index_gives_the_runs_of_its_npz(tmp_path):
    """(An independent test, round 8: over a zh or ja index, whose language has no stemmer, the queries' side of a
    table clirkit wrote as text was read unstemmed though it holds English stems: DT .84 AP with the .npz, .62 with
    its text; PSQ either side alike.)"""
    c = datasets.load("gettext-en-zh")
    docids, texts = c.documents()
    left, right = c.parallel()
    en, zh = Analyzer("en"), Analyzer("zh")
    index = Index.from_tokens(list(docids[:2000]), zh.tokenize_many(list(texts[:2000])), zh)
    english, chinese = en.tokenize_many(list(left[:1500])), zh.tokenize_many(list(right[:1500]))
    forward, reverse = train_table(english, chinese, en, zh), train_table(chinese, english, zh, en)
    topics = dict(list(c.queries("test").items())[:200])
    for system in (DT, QueryPSQ):
        text = as_text(forward, tmp_path, "en-zh.lex.gz")
        want = rows(system(source_lang="en").fit(Resources(index=index, table=forward)).search(topics))
        assert rows(system(source_lang="en").fit(Resources(index=index, table=text)).search(topics)) == want
    text = as_text(reverse, tmp_path, "zh-en.lex.gz")
    want = rows(DocPSQ(source_lang="en").fit(Resources(index=index, reverse_table=reverse)).search(topics))
    assert rows(DocPSQ(source_lang="en").fit(Resources(index=index, reverse_table=text)).search(topics)) == want


@pytest.mark.parametrize("verb", ["dt", "psq"])
def test_a_dictionary_named_without_its_languages_gives_the_run_of_its_conversion(small, verb):
    """(Round 8, finding 4: dt and psq read a MUSE file named words.txt without languages, unstemmed: "waters" met
    nothing, while en-es.txt, the same lines, and its conversion found the verse.)"""
    for name in ("words.txt", "en-es.txt"):
        (small / name).write_text("water aguas\nblack negro\ndog perros\n", encoding="utf-8")
    args = ["ttable", "convert", str(small / "words.txt"), "--format", "muse", "--source-lang", "en"]
    assert main([*args, "--target-lang", "es", "-o", str(small / "words.npz"), "-q"]) == 0
    _, converted = search(small, verb, small / "words.npz")
    assert converted and "d1" in converted
    for name in ("words.txt", "en-es.txt"):
        assert search(small, verb, small / name, more=["--table-format", "muse"]) == (0, converted)


def test_a_stemmed_text_table_over_an_unstemmed_index_is_refused_as_its_npz_is(nave, tmp_path):
    """(Round 8, finding 3c: the text of a stemmed table over an index built with --stemmer none ran with a note,
    AP .0037 against .0493 on the stemmed index; its .npz is refused.)"""
    _, pairs, _ = nave
    bare = Analyzer("es", stemmer=None)
    unstemmed = Index.from_tokens([f"d{i}" for i in range(300)], bare.tokenize_many(list(pairs[1][:300])), bare)
    table = trained(pairs, "en", "es")
    for given in (table, as_text(table, tmp_path, "en-es.lex.gz")):
        with pytest.raises(TableMismatch, match="Snowball stems|analyzed as es, Snowball stems"):
            DT(source_lang="en").fit(Resources(index=unstemmed, table=given))


@pytest.mark.parametrize("second", ["reverse", "cyrillic"])
def test_a_second_text_table_that_does_not_fit_is_named_and_refused(nave, small, capsys, second):
    """(Round 8, findings 3b and 10: a reverse text table as --table2 ran with a note, and a second table of other
    words was refused under the first table's name.)"""
    _, pairs, _ = nave
    save_table(trained(pairs, "en", "es"), small / "en-es.npz")
    path = small / "two.lex"
    if second == "reverse":
        save_table(trained(pairs, "es", "en"), path)
    else:
        cyrillic = str.maketrans("abcdefghijklmnopqrstuvwxyz", "абцдефгхийклмнопярстуввхыз")
        words = "the light of waters dog black house sea".split()
        path.write_text("".join(f"{w.translate(cyrillic)} {w} 0.5\n" for w in words), encoding="utf-8")
    status, _ = search(small, "psq", small / "en-es.npz", path, more=["--translate", "queries"])
    err = capsys.readouterr().err
    assert status == 2 and err.startswith(f"clirkit: error: {path}: ") and err.count("\n") == 1, err


@pytest.mark.parametrize("more", [[], ["--translate", "queries"]])
def test_a_dictionary_on_stdin_is_read_once(small, monkeypatch, more):
    """(An independent re-check: reading an unnamed dictionary again with its languages read stdin twice, and
    `--table - --table-format pairs` was refused as empty; dt reads it once with them, psq when its side is known.)"""
    import io
    import sys

    lines = "water\taguas\nblack\tnegro\ndog\tperros\n".encode()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(lines), encoding="utf-8"))
    verb = "psq" if more else "dt"
    status, run = search(small, verb, "-", more=["--table-format", "pairs", *more])
    assert status == 0 and "d1" in run and "d2" in run


def test_ttable_show_of_a_dictionary_without_the_documents_language_says_so(tmp_path, capsys):
    """(A re-check of round 8, N2: without --target-lang show said DT passes "lights" through; dt reads the
    dictionary with both languages and translates it.)"""
    (tmp_path / "w.txt").write_text("light luz\nwater agua\n", encoding="utf-8")
    args = ["ttable", "show", str(tmp_path / "w.txt"), "lights", "--format", "muse", "--source-lang", "en", "-q"]
    assert main(args) == 0
    assert "give it to read it as dt does" in capsys.readouterr().out
    assert main([*args, "--target-lang", "es"]) == 0
    assert capsys.readouterr().out.splitlines()[:2] == ["lights -> light\t(1 translation)", "  luz\t1.000000"]


def test_another_tools_surface_table_over_a_chinese_index_keeps_the_queries_unstemmed(tmp_path):
    """(A re-check, R4: since the queries' side of a text table over a zh index may be read as stems, a table of
    surface English words must still be read as words: 47-60% of such a vocabulary are their own stems, under the
    70% bar.) A table trained without stemming gives the runs of its npz, which records that analysis."""
    c = datasets.load("gettext-en-zh")
    docids, texts = c.documents()
    left, right = c.parallel()
    en, zh = Analyzer("en", stemmer=None), Analyzer("zh")
    index = Index.from_tokens(list(docids[:2000]), zh.tokenize_many(list(texts[:2000])), zh)
    table = train_table(en.tokenize_many(list(left[:1500])), zh.tokenize_many(list(right[:1500])), en, zh)
    topics = dict(list(c.queries("test").items())[:200])
    text = as_text(table, tmp_path, "surface.lex.gz")
    want = rows(DT(source_lang="en").fit(Resources(index=index, table=table)).search(topics))
    assert rows(DT(source_lang="en").fit(Resources(index=index, table=text)).search(topics)) == want


ENGLISH = "house dog cat water fire tree river mountain city king queen bread wine sea sun moon star light dark book"
SPANISH = (
    "casa perro gato agua fuego arbol rio montana ciudad rey reina pan vino mar sol luna estrella luz oscuro libro"
)


@pytest.mark.parametrize("verb", ["dt", "psq"])
@pytest.mark.parametrize("dropped", ["", "montana"])
def test_a_small_table_clirkit_wrote_as_text_gives_the_run_of_its_npz(tmp_path, verb, dropped):
    """(Edge round 13, 13A-2: a table of fewer than STEMMED_MIN words read its query side as surface words, so
    "house" missed the stem "hous" and went untranslated. Without "montana", no Spanish stem is told from a word
    by the index ("montan", its own stem once stemmed again); every English one is its own stem.)"""
    kept = [i for i, w in enumerate(SPANISH.split()) if w != dropped]
    english, spanish = [ENGLISH.split()[i] for i in kept], [SPANISH.split()[i] for i in kept]
    _parallel_and_documents(tmp_path, english, spanish)
    (tmp_path / "q.tsv").write_text("z1\thouse\nz2\tcity\nz3\tking\nz4\thouses cities\n", encoding="utf-8")
    assert main(["index", str(tmp_path / "docs.tsv"), "-o", str(tmp_path / "ix.npz"), "--lang", "es", "-q"]) == 0
    train = ["ttable", "train", "--source", str(tmp_path / "par.en"), "--target", str(tmp_path / "par.es")]
    for name in ("en-es.npz", "en-es.lex.gz"):
        assert main([*train, "--source-lang", "en", "--target-lang", "es", "-o", str(tmp_path / name), "-q"]) == 0
    _, want = search(tmp_path, verb, tmp_path / "en-es.npz")
    assert {line.split()[0] for line in want.splitlines()} == {"z1", "z2", "z3", "z4"}
    assert search(tmp_path, verb, tmp_path / "en-es.lex.gz") == (0, want)


def test_ttable_show_reads_a_small_table_clirkit_wrote_as_stems_as_dt_does(tmp_path, capsys):
    """(Edge round 14, leftovers: DT read the query side of a small text table clirkit trained as stems, since its
    Spanish side shows stems ("montan"); ttable show, which has no index, required every English word to be its own
    stem, and "expans" (stemmed again: "expan") is not, so it said "cities" passed through unchanged while DT
    translated it.)"""
    english, spanish = [*ENGLISH.split(), "expanse"], [*SPANISH.split(), "extension"]
    _parallel_and_documents(tmp_path, english, spanish)
    (tmp_path / "q.tsv").write_text("z2\tcities\n", encoding="utf-8")
    assert main(["index", str(tmp_path / "docs.tsv"), "-o", str(tmp_path / "ix.npz"), "--lang", "es", "-q"]) == 0
    train = ["ttable", "train", "--source", str(tmp_path / "par.en"), "--target", str(tmp_path / "par.es")]
    table = tmp_path / "en-es.lex"
    assert main([*train, "--source-lang", "en", "--target-lang", "es", "-o", str(table), "-q"]) == 0
    status, run = search(tmp_path, "dt", table)
    assert status == 0 and run.split()[0] == "z2"  # DT translated "cities" (as the stem "citi")
    capsys.readouterr()
    assert main(["ttable", "show", str(table), "cities", "--source-lang", "en", "-n", "1"]) == 0
    assert capsys.readouterr().out.splitlines()[0].startswith("cities -> citi\t(")


def test_ttable_show_reads_a_small_hand_written_table_as_dt_does(tmp_path, capsys):
    """(Edge round 14, finding 4: ttable show read a hand-written table of ten English words, nine their own stems, as
    stems, and said "waters" passed through unchanged, while DT read it as words, its Spanish side showing words
    over the index, and translated "waters". Without the target language show cannot tell which DT reads: it shows
    both, the one that finds translations first; with it, the one DT reads.)"""
    pairs = (
        "luz light,dios god,día day,noche night,tierra earth,cielo sky,espíritu spirit,bueno good,mar sea,aguas waters"
    )
    table = tmp_path / "hand.lex"
    table.write_text("".join(f"{pair} 1.0\n" for pair in pairs.split(",")), encoding="utf-8")
    docs = "d1\tlas aguas del mar\nd2\tla luz del día\nd3\tdios y el cielo y la tierra\nd4\tla noche\n"
    (tmp_path / "docs.tsv").write_text(docs, encoding="utf-8")
    (tmp_path / "q.tsv").write_text("z1\twaters\n", encoding="utf-8")
    assert main(["index", str(tmp_path / "docs.tsv"), "-o", str(tmp_path / "ix.npz"), "--lang", "es", "-q"]) == 0
    status, run = search(tmp_path, "dt", table)
    assert status == 0 and run.split()[:3] == ["z1", "Q0", "d1"]  # DT translated "waters" (as the word: aguas)
    capsys.readouterr()
    show = ["ttable", "show", str(table), "waters", "--source-lang", "en"]
    assert main([*show, "--target-lang", "es"]) == 0
    assert capsys.readouterr().out == "waters\t(1 translation)\n  aguas\t1.000000\n"
    assert main(show) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[:2] == [
        "waters\t(read as words, as DT reads them if the target words are words; 1 translation)",
        "  aguas\t1.000000",
    ]
    assert out.splitlines()[2].startswith("waters -> water\t(read as stems, as DT reads them if the target words")
    assert "give --target-lang (their language) to show the one reading" in err


def _parallel_and_documents(tmp_path, english: list[str], spanish: list[str]) -> None:
    """``par.en`` and ``par.es`` (400 aligned lines of 4 of the words, the same positions in both) and ``docs.tsv``
    (30 Spanish documents of 2-14 of them) in ``tmp_path``, drawn with seed 1."""
    import random

    draw, words = random.Random(1), len(english)
    lines = [draw.sample(range(words), 4) for _ in range(400)]
    for name, vocab in (("par.en", english), ("par.es", spanish)):
        (tmp_path / name).write_text("".join(" ".join(vocab[j] for j in line) + "\n" for line in lines), "utf-8")
    docs = [[draw.randrange(words) for _ in range(draw.randint(2, 14))] for _ in range(30)]
    (tmp_path / "docs.tsv").write_text(
        "".join(f"D{i}\t{' '.join(spanish[j] for j in d)}\n" for i, d in enumerate(docs)), "utf-8"
    )
