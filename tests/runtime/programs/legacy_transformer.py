"""A model-parallel transformer trained the way mesh-transformer-jax trained GPT-J (JAX 0.2-0.3).

Written against the API JAX has since removed, as such scripts were: the old mesh function
`jax.experimental.maps.mesh`, `jax.experimental.PartitionSpec`, `pjit` with
`in_axis_resources`/`out_axis_resources`, `maps.thread_resources.env = ResourceEnv(...)`, and
`xmap` over a 'shard' axis (the model-parallel 'mp' mesh axis) and a 'batch' axis (the
data-parallel 'dp' mesh axis). Every parameter carries a leading shard dim; the layers are
GPT-J's (attention and feed-forward in parallel), with its f_psum/g_psum pair, its
vocabulary-sharded embedding and its sharded softmax cross-entropy.

    shapecheck run legacy_transformer.py            # one process, 8 devices
    shapecheck run legacy_transformer.py --coordinator localhost:PORT --num-processes 2 --process-id I

`current_transformer.py` is the same model written with today's shard_map.
"""
import argparse

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import PartitionSpec as P
from jax.experimental import maps, multihost_utils
from jax.experimental.maps import ResourceEnv, xmap
from jax.experimental.pjit import pjit

DP, MP = 2, 4
BATCH, SEQ, VOCAB = 4, 8, 64
D_MODEL, HEADS, D_HEAD, D_FF, LAYERS = 32, 8, 4, 64, 2
LEARNING_RATE = 0.5
STEPS = 3


@jax.custom_vjp
def f_psum(x):
    """Identity forward, psum backward: the entry of a model-parallel block."""
    return x


def f_psum_fwd(x):
    return f_psum(x), None


def f_psum_bwd(_, g):
    return (jax.lax.psum(g, "shard"),)


f_psum.defvjp(f_psum_fwd, f_psum_bwd)


@jax.custom_vjp
def g_psum(x):
    """psum forward, identity backward: the exit of a model-parallel block."""
    return jax.lax.psum(x, "shard")


def g_psum_fwd(x):
    return g_psum(x), None


def g_psum_bwd(_, g):
    return (g,)


g_psum.defvjp(g_psum_fwd, g_psum_bwd)


def layer_norm(x, scale, offset):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) * jax.lax.rsqrt(var + 1e-5) * scale + offset


def embed(table, tokens):
    """The vocabulary split over shards: each adds the rows it holds."""
    per_shard = VOCAB // MP
    start = jax.lax.axis_index("shard") * per_shard
    return g_psum(jax.nn.one_hot(tokens - start, per_shard) @ table)


def transformer_layer(p, x):
    """GPT-J's layer: this shard's heads and feed-forward slice, summed over shards."""
    h = layer_norm(f_psum(x), p["ln_scale"], p["ln_offset"])
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
    return x + g_psum(attn + ff)


def sharded_cross_entropy(p, x, targets):
    """mesh-transformer-jax's ProjectionShard.loss: the softmax over a vocabulary split over shards."""
    h = layer_norm(f_psum(x), p["ln_scale"], p["ln_offset"])
    logits = h @ p["proj"]
    per_shard = VOCAB // MP
    start = jax.lax.axis_index("shard") * per_shard
    global_max = jax.lax.pmax(jax.lax.stop_gradient(logits.max(-1, keepdims=True)), "shard")
    logits -= jax.lax.stop_gradient(global_max)
    predicted = g_psum(jnp.sum(jax.nn.one_hot(targets - start, per_shard) * logits, axis=-1))
    sum_exp = g_psum(jnp.exp(logits).sum(axis=-1))
    return jnp.log(sum_exp) - predicted


def token_losses(params, context, targets):
    x = embed(params["embed"], context)
    for layer in params["layers"]:
        x = transformer_layer(layer, x)
    return sharded_cross_entropy(params["head"], x, targets)


def train_step(params, context, targets):
    """One SGD step on this shard's parameters and this replica's batch."""
    loss, grads = jax.value_and_grad(lambda p: token_losses(p, context, targets).mean())(params)
    grads = jax.lax.pmean(grads, "batch")
    new_params = jax.tree_util.tree_map(lambda w, g: w - LEARNING_RATE * g, params, grads)
    return jax.lax.pmean(loss, "batch"), new_params


def init(key):
    """Every parameter with its leading [MP] shard dim."""
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
    """Deterministic token batches, [DP, BATCH, SEQ + 1] each, the same on every process."""
    rng = np.random.RandomState(0)
    for _ in range(STEPS + 1):
        tokens = rng.randint(0, VOCAB, size=(DP, BATCH, SEQ + 1)).astype(np.int32)
        yield tokens[..., :-1], tokens[..., 1:]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--coordinator")
    parser.add_argument("--num-processes", type=int, default=1)
    parser.add_argument("--process-id", type=int, default=0)
    args = parser.parse_args()
    if args.coordinator:
        jax.distributed.initialize(args.coordinator, args.num_processes, args.process_id,
                                   initialization_timeout=60)

    devices = np.array(jax.devices()).reshape((DP, MP))
    data = batches()
    param_spec = jax.tree_util.tree_map(lambda _: P("mp"), jax.eval_shape(init, jax.random.PRNGKey(0)))
    with jax.experimental.maps.mesh(devices, ("dp", "mp")):
        params = pjit(init, in_axis_resources=None, out_axis_resources=param_spec)(jax.random.PRNGKey(0))
        train = xmap(train_step,
                     in_axes=(["shard", ...], ["batch", ...], ["batch", ...]),
                     out_axes=([...], ["shard", ...]),
                     axis_resources={"shard": "mp", "batch": "dp"})
        for step in range(STEPS):
            loss, params = train(params, *next(data))
            print(f"step {step} loss {float(loss)!r}")

    # Inference the way the GPT-J notebook set its mesh up: for the rest of the program.
    maps.thread_resources.env = ResourceEnv(maps.Mesh(devices, ("dp", "mp")), ())
    evaluate = xmap(token_losses,
                    in_axes=(["shard", ...], ["batch", ...], ["batch", ...]),
                    out_axes=["batch", ...],
                    axis_resources={"shard": "mp", "batch": "dp"})
    losses = multihost_utils.process_allgather(evaluate(params, *next(data)), tiled=True)
    print("eval losses", " ".join(repr(float(v)) for v in np.asarray(losses).mean(-1).ravel()))
    norm = pjit(lambda p: sum(jnp.sum(w ** 2) for w in jax.tree_util.tree_leaves(p)),
                in_axis_resources=(param_spec,), out_axis_resources=None)
    print(f"params norm {float(norm(params))!r}")
    print("mesh", dict(maps.thread_resources.env.physical_mesh.shape))


if __name__ == "__main__":
    main()
