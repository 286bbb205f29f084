"""Statistics, figures and HTML balance reports (built on sims results)."""
