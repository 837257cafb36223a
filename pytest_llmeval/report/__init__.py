"""Terminal summary, JUnit properties, the JSON report and the human review files, all built from per-sample records."""
