"""Collection ``multi30k-de-en`` (BENCHMARKS.md C3), built at run time from third-party files, never bundled.

From Multi30K (``shared/data/multi30k``, or a clone of its repository given to
``clirkit datasets build multi30k-de-en --from DIR``; non-commercial research
use; see :data:`RECIPE`). Task 2 gives, per image, 5 German and 5 English descriptions
written independently (not translations):

- documents: the images outside the translation training set, i.e. the task 2
  ``val`` (1,014) and ``test_2016`` (1,000) images; docid = image file name
  without ``.jpg``; text = its 5 English descriptions joined by spaces;
- queries: the first German description of each of those images (qid = the
  image's docid); relevant (grade 1): its own image only;
- splits: test = the ``test_2016`` images; the ``val`` images split by
  SHA-256 of the docid (first 8 bytes mod 100 < 80: train, else dev);
- parallel corpus: task 1 ``train``, (German translation, English caption)
  of 29,000 images disjoint from the documents (source = German).

Counts (a test checks them against a fresh build)::

    standard: documents 2,014; parallel pairs 29,000
      train 801 queries; grade 1: 801
      dev 213 queries; grade 1: 213
      test 1,000 queries; grade 1: 1,000
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from clirkit.datasets._runtime import Recipe
from clirkit.datasets._store import VariantData
from clirkit.errors import ClirkitError, located
from clirkit.fileio import display_name, iter_lines
from clirkit.run import Qrels

NAME = "multi30k-de-en"
_T2 = "multi30k/data/task2"
_T1 = "multi30k/data/task1"
SOURCES = tuple(
    [f"{_T2}/image_splits/{s}_images.txt" for s in ("val", "test_2016")]
    + [f"{_T2}/raw/{s}.{k}.{lang}.gz" for s in ("val", "test_2016") for k in range(1, 6) for lang in ("de", "en")]
    + [f"{_T1}/image_splits/train.txt", f"{_T1}/raw/train.de.gz", f"{_T1}/raw/train.en.gz"]
)
DESCRIPTION = (
    "Multi30K task 2: a German image description -> the images' 5 English descriptions (written independently)"
)


def _lines(path: Path) -> list[str]:
    """Every line of a one-sentence-per-line file (blank lines kept, so line i = image i)."""
    return [" ".join(text.split()) for _, text in iter_lines(path, skip_blank=False)]


def _aligned(paths: list[Path], n: int, images: Path) -> list[list[str]]:
    """The lines of each of ``paths``, which must be ``n``: one per image of the split file ``images``."""
    out = []
    for p in paths:
        lines = _lines(p)
        if len(lines) != n:
            raise located(
                display_name(p),
                len(lines),
                f"expected {n} lines, one per image of {display_name(images)}, found {len(lines)}",
            )
        out.append(lines)
    return out


def _images(path: Path) -> list[str]:
    """The image ids a split file names, one a line (``1000092795.jpg`` gives ``1000092795``)."""
    names = _lines(path)
    if not names:
        raise ClirkitError(f"{display_name(path)}: empty: a split file names one image a line")
    stems = [n[:-4] if n.endswith(".jpg") else n for n in names]
    if len(set(stems)) != len(stems) or not all(stems):
        raise ClirkitError(f"{path}: image names must be unique and non-empty")
    return stems


def val_split(image: str) -> str:
    """train or dev for a ``val`` image: SHA-256 of its id, first 8 bytes big-endian, mod 100 < 80 is train."""
    bucket = int.from_bytes(hashlib.sha256(image.encode("utf-8")).digest()[:8], "big") % 100
    return "train" if bucket < 80 else "dev"


def build(files: dict[str, Path]) -> dict[str, VariantData]:
    """The ``standard`` variant in memory from the source files (``{source: path}``, the sources of
    :data:`SOURCES`)."""
    docids: list[str] = []
    doc_texts: list[str] = []
    queries: dict[str, dict[str, str]] = {"train": {}, "dev": {}, "test": {}}
    for part in ("val", "test_2016"):
        split_file = files[f"{_T2}/image_splits/{part}_images.txt"]
        images = _images(split_file)
        en = _aligned([files[f"{_T2}/raw/{part}.{k}.en.gz"] for k in range(1, 6)], len(images), split_file)
        de1_file = files[f"{_T2}/raw/{part}.1.de.gz"]
        (de1,) = _aligned([de1_file], len(images), split_file)
        for i, image in enumerate(images):
            if not de1[i]:
                raise located(
                    display_name(de1_file),
                    i + 1,
                    f"empty line: the query, the first German description of image {image} (line {i + 1} of "
                    f"{display_name(split_file)}), is missing",
                )
            text = " ".join(caps[i] for caps in en if caps[i])
            if not text:
                raise located(
                    display_name(files[f"{_T2}/raw/{part}.1.en.gz"]),
                    i + 1,
                    f"empty line, as in {part}.2-5.en.gz: image {image} has no English description (its document)",
                )
            docids.append(image)
            doc_texts.append(text)
            split = "test" if part == "test_2016" else val_split(image)
            queries[split][image] = de1[i]
    if len(set(docids)) != len(docids):
        raise ClirkitError(f"{files[SOURCES[0]].parent}: an image is both in val and test_2016")
    train_split = files[f"{_T1}/image_splits/train.txt"]
    train_images = _images(train_split)
    de, en = _aligned(
        [files[f"{_T1}/raw/train.de.gz"], files[f"{_T1}/raw/train.en.gz"]], len(train_images), train_split
    )
    overlap = set(train_images) & set(docids)
    if overlap:
        raise ClirkitError(f"{train_split}: {len(overlap)} training images are also documents")
    pairs = [i for i in range(len(train_images)) if de[i] and en[i]]
    qrels = {
        s: Qrels(np.asarray(list(q)), np.asarray(list(q)), np.ones(len(q), dtype=np.int64)) for s, q in queries.items()
    }
    return {
        "standard": VariantData(
            name=NAME,
            variant="standard",
            source_lang="de",
            target_lang="en",
            description=f"{DESCRIPTION}; relevant = its own image",
            docids=docids,
            doc_texts=doc_texts,
            pair_ids=[train_images[i] for i in pairs],
            pair_sources=[de[i] for i in pairs],
            pair_targets=[en[i] for i in pairs],
            queries=queries,
            qrels=qrels,
        )
    }


RECIPE = Recipe(
    NAME,
    SOURCES,
    files="Multi30K's data/task1 (image_splits/train.txt, raw/train.de.gz, raw/train.en.gz) and data/task2 "
    "(image_splits/{val,test_2016}_images.txt, raw/{val,test_2016}.{1..5}.{de,en}.gz)",
    download="a clone of the Multi30K repository, https://github.com/multi30k/dataset (non-commercial research "
    "and educational use; give the clone as DIR)",
    description=DESCRIPTION,
    build=build,
)
