"""The verify attention in NumPy over SGLang's flat-mask inputs: what the stand-in peer
modules compute (so the peers runner's checking can be tested without a GPU)."""
import numpy as np


def extend_attention(q_extend, k_extend, o_extend, k_buffer, kv_indptr, kv_indices, custom_mask, mask_indptr,
                     tree_size, sm_scale, kv_scale=1.0):
    """kv_scale: the pool's dequantization scale (an fp8 pool's values times it), as SGLang's
    k_scale / v_scale; the tree rows (k_extend) are not scaled."""
    batch = len(kv_indptr) - 1
    for b in range(batch):
        prefix_rows = kv_indices[kv_indptr[b]:kv_indptr[b + 1]]
        prefix = len(prefix_rows)
        prefix_keys = k_buffer[prefix_rows, 0, :].astype(np.float64) * kv_scale
        keys = np.concatenate([prefix_keys, k_extend[b * tree_size:(b + 1) * tree_size, 0, :]])
        keys = keys.astype(np.float64)
        mask = np.asarray(custom_mask[mask_indptr[b]:mask_indptr[b + 1]]).reshape(tree_size, prefix + tree_size)
        q = q_extend[b * tree_size:(b + 1) * tree_size].astype(np.float64)  # [T, H, 576]
        scores = np.einsum("thd,nd->thn", q, keys) * sm_scale
        scores = np.where(mask[:, None, :].astype(bool), scores, -np.inf)
        scores -= scores.max(axis=2, keepdims=True)
        p = np.exp(scores)
        p /= p.sum(axis=2, keepdims=True)
        o_extend[b * tree_size:(b + 1) * tree_size] = np.einsum("thn,nd->thd", p, keys[:, :512])
