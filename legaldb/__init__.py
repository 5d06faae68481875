"""The statute database: laws, versions, articles, repeals and successors, point in time."""
