"""Tests of the constructs_nld package and the tooling around it."""
