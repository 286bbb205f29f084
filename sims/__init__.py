"""Strategies and the Monte Carlo runner (built on cardgame)."""
