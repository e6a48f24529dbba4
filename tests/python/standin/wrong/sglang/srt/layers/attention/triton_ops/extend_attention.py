"""Stand-in for SGLang's Triton extend attention that ignores the tree mask (sees every
tree node): the peers runner must report it incorrect."""
import numpy as np

import attention_numpy


def extend_attention_fwd(q_extend, k_extend, v_extend, o_extend, k_buffer, v_buffer, qo_indptr, kv_indptr, kv_indices,
                         custom_mask, is_causal, mask_indptr, max_len_extend, k_scale, v_scale, sm_scale=None):
    attention_numpy.extend_attention(q_extend, k_extend, o_extend, k_buffer, kv_indptr, kv_indices,
                                     np.ones_like(custom_mask), mask_indptr, max_len_extend, sm_scale)
