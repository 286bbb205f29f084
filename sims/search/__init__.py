"""The search player (``player``) and its machinery: candidate moves, play-outs, the ISMCTS
tree. It builds on the scripted strategies (``sims.strategies``), never the reverse.

Everything here talks to a game only through the engine's public surface (``seat``,
``phase``, ``view``, ``legal_actions``, ``apply_unchecked``, ``is_over``, ``scores``,
``winners``), so a faster engine with the same surface can take the play-outs over.
"""
