"""Each paper's experimental protocol as plain functions, called by the workflow's rules."""
