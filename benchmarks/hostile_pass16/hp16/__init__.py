"""Hostile strategies of pass 16 (issue 35): none were needed for its one finding, which is
a writer of a results folder (``mmap16.py``); this package holds the guest-side probe."""
