"""The real test collections (``../shared/BENCHMARKS.md``), behind one small interface.

>>> from clirkit import datasets
>>> c = datasets.load("nave-en-es")                 # bundled with clirkit
>>> queries, qrels = c.queries("test"), c.qrels("test")
>>> docids, texts = c.documents()
>>> english, spanish = c.parallel()                  # source (query language), target

Collections:

- ``nave-en-es`` (C1, the default, bundled in ``datasets/data/``; variants
  ``standard`` and ``strict``): English Nave's Topical Bible subtopics ->
  Spanish RV1909 verses. Rebuilt by :mod:`clirkit.datasets.build_nave`.
- ``bible-verse-es-en`` (C2; ``standard``, ``topical``): Spanish NT verses ->
  English WEB verses, graded by OpenBible cross references.
- ``multi30k-de-en`` (C3; ``standard``): a German image description -> the
  image's English descriptions.

- ``debian-desc-{de,es,fr,ru,ja,ko}-en`` (``standard``, ``english-queries``): a Debian
  package's translated short description -> English long descriptions (topics
  to paragraphs); bundled, :mod:`clirkit.datasets.debian_desc`.
- ``gettext-{de,es,ru,zh,ja,ko,th}-en`` (``standard``; ``gettext-zh-en`` also
  ``traditional``, the zh_TW catalogs): a translated user-interface
  message -> English messages (sentences to their translations); bundled,
  :mod:`clirkit.datasets.gettext_catalogs`.
- ``gettext-en-{zh,ja,ko,th}`` (``standard``): the same messages the other way, an English message -> its
  translation among the translated messages (documents written without spaces, as NeuCLIR's and HC4's); bundled,
  derived from ``gettext-LANG-en`` by :mod:`clirkit.datasets.gettext_reverse`.
- ``manpages-{de,es,ru}-en`` (``standard``, ``english-queries``): a translated
  manual page's NAME description -> English manual pages (longer technical
  documents); bundled, :mod:`clirkit.datasets.manpages`.
- ``debian-deps-en-fr`` (``standard``): a Debian package's English description -> the
  French descriptions of the packages it depends on or recommends (a training
  collection for learned rankers: 18,756 training queries, relevance beyond
  translation, the query's own translation excluded); bundled,
  :mod:`clirkit.datasets.debian_deps`.

C2 and C3 are never bundled: they are built once from their third-party files,
either downloaded by the user (:func:`build`, ``clirkit datasets build NAME --from
DIR``) or found in the shared data folder (``shared=``, else ``$CLIRKIT_SHARED``,
else ``shared`` beside the repository) on first use, and cached under
``$CLIRKIT_CACHE`` (default ``~/.cache/clirkit``), where a later :func:`load`
finds them. :func:`catalog` lists every collection and whether it is at hand;
:func:`clirkit.datasets.export.export` writes one as plain files. Counts are in
``datasets/README.md``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable

from clirkit.datasets.collection import Collection, cache_dir
from clirkit.errors import ClirkitError, cut_repr

DEFAULT = "nave-en-es"
BUNDLED = Path(__file__).parent / "data"

__all__ = [
    "Collection",
    "CollectionData",
    "DEFAULT",
    "build",
    "cache_dir",
    "catalog",
    "load",
    "names",
    "recipe",
    "buildable",
    "variants",
    "write_collection",
]


def _built(name: str) -> Callable[[str | os.PathLike[str] | None], Path]:
    """The folder of a collection built from third-party files (its :func:`recipe`)."""
    return lambda shared: recipe(name).folder(shared)


def _bundled(name: str) -> Callable[[str | os.PathLike[str] | None], Path]:
    """The folder of a collection committed in ``datasets/data/`` (built from Debian packages)."""
    return lambda shared: BUNDLED / name


# collections built from third-party files: name -> the module holding its RECIPE
_BUILT = {"bible-verse-es-en": "bible_verse", "multi30k-de-en": "multi30k"}

# name -> (variants, first is the default; function giving the folder that holds the variant folders)
_REGISTRY: dict[str, tuple[tuple[str, ...], Callable[[str | os.PathLike[str] | None], Path]]] = {
    "nave-en-es": (("standard", "strict"), _bundled("nave-en-es")),
    "bible-verse-es-en": (("standard", "topical"), _built("bible-verse-es-en")),
    "multi30k-de-en": (("standard",), _built("multi30k-de-en")),
    **{
        f"debian-desc-{lang}-en": (("standard", "english-queries"), _bundled(f"debian-desc-{lang}-en"))
        for lang in ("de", "es", "fr", "ru", "ja", "ko")
    },
    **{
        f"gettext-{lang}-en": (
            ("standard", "traditional") if lang == "zh" else ("standard",),
            _bundled(f"gettext-{lang}-en"),
        )
        for lang in ("de", "es", "ru", "zh", "ja", "ko", "th")
    },
    **{f"gettext-en-{lang}": (("standard",), _bundled(f"gettext-en-{lang}")) for lang in ("zh", "ja", "ko", "th")},
    **{
        f"manpages-{lang}-en": (("standard", "english-queries"), _bundled(f"manpages-{lang}-en"))
        for lang in ("de", "es", "ru")
    },
    "debian-deps-en-fr": (("standard",), _bundled("debian-deps-en-fr")),
}


def names() -> list[str]:
    """The known collections, the default first."""
    return list(_REGISTRY)


def variants(name: str) -> list[str]:
    """The variants of collection ``name``, the default first."""
    if name not in _REGISTRY:
        raise ClirkitError(f"unknown collection {name!r} (known: {', '.join(_REGISTRY)})")
    return list(_REGISTRY[name][0])


def load(
    name: str = DEFAULT, *, variant: str | None = None, shared: str | os.PathLike[str] | None = None
) -> Collection:
    """Open one variant of a known collection, a collection folder, or an ir_datasets dataset.

    Args:
        name: one of :func:`names`, a folder holding a collection variant (its ``manifest.json``), or
            ``irds:ID`` with optional ``?key=value&...`` options: the ir_datasets dataset ``ID``
            (see :mod:`clirkit.datasets.irds`; needs ``pip install 'clirkit[irds]'``).
        variant: one of :func:`variants` of ``name`` (None: the first); for a folder, None or the
            variant the folder holds.
        shared: the shared folder holding ``data/`` (C2 and C3 only; the
            bundled collections ignore it).

    Raises ClirkitError for a name that is not a str or a path (None), an unknown name or variant, or for a
    collection built from third-party files that is neither built (:func:`build`) nor
    buildable from the shared folder (its message says what to download).
    """
    if not isinstance(name, (str, os.PathLike)):  # (os.path.isdir takes an int as a file descriptor)
        raise ClirkitError(
            f"clirkit.datasets.load: name must be a collection name (clirkit.datasets.names()), a collection "
            f"folder or 'irds:ID', got {cut_repr(name)}"
        )
    if isinstance(name, str) and name.startswith("irds:"):
        from clirkit.datasets import irds

        return irds.load(name, variant=variant)
    if name not in _REGISTRY and os.path.isdir(name):
        collection = Collection(name)
        if variant is not None and variant != collection.variant:
            raise ClirkitError(
                f"{name}: holds variant {collection.variant!r}, not {variant!r}: leave out the variant "
                f"(--variant), or give the folder of that variant"
            )
        return collection
    known = variants(name)
    variant = known[0] if variant is None else variant
    if variant not in known:
        raise ClirkitError(f"collection {name} has no variant {variant!r} (choose {', '.join(known)})")
    return Collection(_REGISTRY[name][1](shared) / variant)


def buildable() -> list[str]:
    """The collections built from third-party files (never bundled): :func:`build` makes them."""
    return list(_BUILT)


def recipe(name: str):
    """The :class:`~clirkit.datasets._runtime.Recipe` of a collection built from third-party files; ClirkitError
    for a bundled or unknown one."""
    import importlib

    variants(name)
    if name not in _BUILT:
        raise ClirkitError(
            f"collection {name} is bundled with clirkit: nothing to build "
            f"(built from downloaded files: {', '.join(_BUILT)})"
        )
    return importlib.import_module(f"clirkit.datasets.{_BUILT[name]}").RECIPE


def build(name: str, *folders: str | os.PathLike[str]) -> Path:
    """Build collection ``name`` (e.g. ``multi30k-de-en``) from the source files a user downloaded into
    ``folders`` (each laid out as the source's own folder, e.g. a clone of the Multi30K repository, or as the
    shared data folder), once, into the cache, where :func:`load` then finds it; returns the cache folder.
    ClirkitError naming the first missing file and where to download it."""
    return recipe(name).build_from(folders)


def catalog() -> list[dict[str, object]]:
    """Every known collection: ``name``, ``variants``, ``status`` (``bundled``; for one built from
    third-party files ``built`` (in the cache), ``shared`` (its files are in the shared folder: built on
    first use) or ``to build``) and a one-line ``description``."""
    rows = []
    for name, (known, folder) in _REGISTRY.items():
        if name in _BUILT:
            description, status = recipe(name).description, recipe(name).status()
        else:
            status = "bundled"
            description = Collection(folder(None) / known[0]).description.split("; ")[0]
        rows.append({"name": name, "variants": list(known), "status": status, "description": description})
    return rows


def __getattr__(attr: str):
    # writing a collection folder (numpy needed) only when asked for
    if attr in ("CollectionData", "write_collection"):
        from clirkit.datasets import _store

        return {"CollectionData": _store.VariantData, "write_collection": _store.write_variant}[attr]
    raise AttributeError(f"module 'clirkit.datasets' has no attribute {attr!r}")
