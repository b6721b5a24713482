"""The hardening harness: long runs that feed clirkit's readers and verbs broken input, kept with the tests.

- :mod:`fuzz`: random mutations of real files through every reader and ``.npz`` loader
  (``python -m tests.hardening.fuzz --minutes 10 --jobs 2``); ``tests/test_fuzz.py`` runs the same targets
  under hypothesis in the suite.
- :mod:`malformed_matrix`: every verb x every input kind x every malformed class, from the command line
  (``python -m tests.hardening.malformed_matrix --jobs 2``); ``tests/test_malformed.py`` keeps the
  regressions it found.

Run them from the repository's root (``tests`` is then found as a namespace package). The test modules import
them as ``hardening.fuzz`` and ``hardening.malformed_matrix`` (pytest puts ``tests/`` on the path).
"""
