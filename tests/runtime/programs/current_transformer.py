"""legacy_transformer.py's model written for today's JAX: shard_map over a ('dp', 'mp') mesh.

Each device holds one block of every parameter (its leading shard dim split over 'mp') and one
block of the batch (split over 'dp'). The collectives are plain `psum`s: under shard_map JAX
tracks which values vary over which mesh axes and transposes each collective correctly, which
is what the legacy script's f_psum/g_psum pair did by hand (and what its pmean of the gradients
over 'batch' did: see train_step). Prints the numbers the legacy
script prints.
"""
import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import multihost_utils
from jax.sharding import AxisType, NamedSharding
from jax.sharding import PartitionSpec as P

DP, MP = 2, 4
BATCH, SEQ, VOCAB = 4, 8, 64
D_MODEL, HEADS, D_HEAD, D_FF, LAYERS = 32, 8, 4, 64, 2
LEARNING_RATE = 0.5
STEPS = 3


def layer_norm(x, scale, offset):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) * jax.lax.rsqrt(var + 1e-5) * scale + offset


def embed(table, tokens):
    per_shard = VOCAB // MP
    start = jax.lax.axis_index("mp") * per_shard
    return jax.lax.psum(jax.nn.one_hot(tokens - start, per_shard) @ table, "mp")


def transformer_layer(p, x):
    h = layer_norm(x, p["ln_scale"], p["ln_offset"])
    batch, seq, _ = h.shape
    heads = HEADS // MP
    q = (h @ p["wq"]).reshape(batch, seq, heads, D_HEAD)
    k = (h @ p["wk"]).reshape(batch, seq, heads, D_HEAD)
    v = (h @ p["wv"]).reshape(batch, seq, heads, D_HEAD)
    scores = jnp.einsum("bqhd,bkhd->bhqk", q, k) / np.sqrt(D_HEAD)
    causal = jnp.tril(jnp.ones((seq, seq), bool))
    weights = jax.nn.softmax(jnp.where(causal, scores, -1e9), axis=-1)
    attn = jnp.einsum("bhqk,bkhd->bqhd", weights, v).reshape(batch, seq, heads * D_HEAD) @ p["wo"]
    ff = jax.nn.gelu(h @ p["w1"]) @ p["w2"]
    return x + jax.lax.psum(attn + ff, "mp")


def sharded_cross_entropy(p, x, targets):
    h = layer_norm(x, p["ln_scale"], p["ln_offset"])
    logits = h @ p["proj"]
    per_shard = VOCAB // MP
    start = jax.lax.axis_index("mp") * per_shard
    global_max = jax.lax.pmax(jax.lax.stop_gradient(logits.max(-1, keepdims=True)), "mp")
    logits -= jax.lax.stop_gradient(global_max)
    predicted = jax.lax.psum(jnp.sum(jax.nn.one_hot(targets - start, per_shard) * logits, axis=-1), "mp")
    sum_exp = jax.lax.psum(jnp.exp(logits).sum(axis=-1), "mp")
    return jnp.log(sum_exp) - predicted


def token_losses(params, context, targets):
    x = embed(params["embed"], context)
    for layer in params["layers"]:
        x = transformer_layer(layer, x)
    return sharded_cross_entropy(params["head"], x, targets)


def unblock(params):
    return jax.tree.map(lambda w: w[0], params)  # this device's [1, ...] block of the shard dim


def train_step(params, context, targets):
    """One SGD step. The loss differentiated is the global one (pmean over 'dp'): the parameters
    do not vary over 'dp', so JAX already sums their gradients over it; the legacy script's
    pmean of the gradients would count each replica twice here."""
    params, context, targets = unblock(params), context[0], targets[0]

    def loss(p):
        return jax.lax.pmean(token_losses(p, context, targets).mean(), "dp")

    value, grads = jax.value_and_grad(loss)(params)
    return value, jax.tree.map(lambda w, g: (w - LEARNING_RATE * g)[None], params, grads)


def evaluate_step(params, context, targets):
    return token_losses(unblock(params), context[0], targets[0])[None]


def init(key):
    keys = iter(jax.random.split(key, 64))

    def normal(*shape, scale=0.02):
        return scale * jax.random.normal(next(keys), (MP, *shape))

    def norm():
        return {"ln_scale": jnp.ones((MP, D_MODEL)), "ln_offset": jnp.zeros((MP, D_MODEL))}

    heads = HEADS // MP * D_HEAD
    layers = [{**norm(), "wq": normal(D_MODEL, heads), "wk": normal(D_MODEL, heads), "wv": normal(D_MODEL, heads),
               "wo": normal(heads, D_MODEL), "w1": normal(D_MODEL, D_FF // MP), "w2": normal(D_FF // MP, D_MODEL)}
              for _ in range(LAYERS)]
    return {"embed": normal(VOCAB // MP, D_MODEL, scale=1.0), "layers": layers,
            "head": {**norm(), "proj": normal(D_MODEL, VOCAB // MP)}}


def batches():
    rng = np.random.RandomState(0)
    for _ in range(STEPS + 1):
        tokens = rng.randint(0, VOCAB, size=(DP, BATCH, SEQ + 1)).astype(np.int32)
        yield tokens[..., :-1], tokens[..., 1:]


def main():
    mesh = jax.make_mesh((DP, MP), ("dp", "mp"), axis_types=(AxisType.Auto, AxisType.Auto))
    data = batches()
    with jax.set_mesh(mesh):
        params = jax.jit(init, out_shardings=NamedSharding(mesh, P("mp")))(jax.random.key(0))
        train = jax.jit(jax.shard_map(train_step, in_specs=(P("mp"), P("dp"), P("dp")), out_specs=(P(), P("mp"))))
        for step in range(STEPS):
            loss, params = train(params, *next(data))
            print(f"step {step} loss {float(loss)!r}")
        evaluate = jax.jit(jax.shard_map(evaluate_step, in_specs=(P("mp"), P("dp"), P("dp")), out_specs=P("dp")))
        losses = multihost_utils.process_allgather(evaluate(params, *next(data)), tiled=True)
        print("eval losses", " ".join(repr(float(v)) for v in np.asarray(losses).mean(-1).ravel()))
        norm = jax.jit(lambda p: sum(jnp.sum(w ** 2) for w in jax.tree.leaves(p)))
        print(f"params norm {float(norm(params))!r}")
        print("mesh", dict(mesh.shape))


if __name__ == "__main__":
    main()
