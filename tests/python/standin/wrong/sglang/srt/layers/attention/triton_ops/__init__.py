"""Stand-in package for the peers runner tests (no GPU): not SGLang."""
