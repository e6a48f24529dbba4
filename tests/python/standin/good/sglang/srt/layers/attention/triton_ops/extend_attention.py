"""Stand-in for SGLang's Triton extend attention (same call, NumPy arrays): not SGLang."""
import attention_numpy


def extend_attention_fwd(q_extend, k_extend, v_extend, o_extend, k_buffer, v_buffer, qo_indptr, kv_indptr, kv_indices,
                         custom_mask, is_causal, mask_indptr, max_len_extend, k_scale, v_scale, sm_scale=None,
                         logit_cap=0.0, skip_prefix_custom_mask=True):
    assert k_scale == v_scale, "MLA: one row, one scale"
    attention_numpy.extend_attention(q_extend, k_extend, o_extend, k_buffer, kv_indptr, kv_indices, custom_mask,
                                     mask_indptr, max_len_extend, sm_scale, k_scale)
