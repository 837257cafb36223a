"""Terminal summary, JUnit properties and the JSON report, all built from per-sample records."""
