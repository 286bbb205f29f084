"""Search players' machinery: candidate moves, play-outs and the ISMCTS tree.

Everything here talks to a game only through the engine's public surface (``seat``,
``phase``, ``view``, ``legal_actions``, ``apply_unchecked``, ``is_over``, ``scores``,
``winners``), so a faster engine with the same surface can take the play-outs over.
"""

# The strategies package imports the search player, which imports this package: load the
# strategies first so that either entry point finds both packages whole.
from .. import strategies  # noqa: F401
