# The offers ``_match.play_native`` packs for ``_rows.add_finished``: one row of C ints per
# offered destination card, in this order (no Python object per offer).
cdef enum:
    OFFER_SEAT = 0
    OFFER_DESTINATION = 1
    OFFER_TURN = 2
    OFFER_ROUND = 3
    OFFER_KEPT = 4
    OFFER_FIELDS = 5
