// PLACEHOLDER: the CLI (list / run) is being written.
int main() { return 0; }
