"""The package's one exception type."""


class VerifyError(ValueError):
    """An argument was refused (the message names it, says what it was and what is allowed),
    or the library reported a failure. `status` is the library's vbops_status (0 when the
    Python side refused before calling it)."""

    def __init__(self, message, status=0):
        super().__init__(message)
        self.status = status
