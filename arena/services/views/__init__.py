"""Read queries for the dashboard and the API, one module per resource (bots, matches,
owners, ratings, tournaments): plain data out (dicts and lists)."""
