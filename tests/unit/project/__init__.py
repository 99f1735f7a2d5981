"""Project-wide rules: the library layout, the manual, the CI files,
setup's package list, the wrapper's export tables, the qtest and fixture
scripts."""
