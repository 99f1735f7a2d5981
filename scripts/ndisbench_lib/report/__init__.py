"""Report stage: KTAP parsing, run results and their renderings (matrix, Markdown, JUnit, HTML), compare."""
