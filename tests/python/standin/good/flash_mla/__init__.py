"""Stand-in for FlashMLA (importable, never called on the cases the tests use): not FlashMLA."""


def get_mla_metadata(*args, **kwargs):
    raise AssertionError("the stand-in FlashMLA must not be called on a case it does not support")


flash_mla_with_kvcache = get_mla_metadata
