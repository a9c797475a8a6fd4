"""hexjax's policy-value network (`hexjax/alphazero/network.py`) written as an ONNX graph by
hand, with the `onnx` package's helper API, from the trained parameters.

Why by hand: the maintained JAX-to-ONNX converter, jax2onnx, pins orbax-checkpoint below
0.11.37 (hexjax runs 0.12), and with jax 0.10 its graphs of Flax convolutions carry shape
annotations that contradict the ops (`onnx.checker.check_model(full_check=True)` rejects them).
The network is small and fixed: convolutions, ReLU, a residual sum, global pooling, dense
layers and tanh, each one ONNX op, so the graph below mirrors `PolicyValueNet.__call__` line by
line. The parity tests (tests/test_play_export.py) hold it to the Flax network on every shipped
model.

The graph takes observations float32[batch, n, n, C] (NHWC, as hexjax observes), transposes
them once to ONNX's NCHW, and transposes the heads' planes back before flattening, so the dense
layers see Flax's flattening order. Opset 17, IR version 8: onnxruntime 1.18 and later load it.
"""

from __future__ import annotations

import numpy as np

OPSET = 17
IR_VERSION = 8
# Flax's parameter names for PolicyValueNet's heads besides the stem ("Conv_0") and the blocks.
# The dense head: the policy and value 1x1 convolutions, the policy dense layer and the value
# head's two dense layers. The pooled head: the cells' 1x1 convolution, the extra actions'
# dense layer (games with pass or swap only) and the value's two dense layers.
_HEADS = {
    "dense": {"Conv_1", "Conv_2", "Dense_0", "Dense_1", "Dense_2"},
    "pooled": {"policy_cells", "value_hidden", "value_out"},
}


def policy_value_model(params, observation_shape, num_actions: int, *, name: str):
    """onnx.ModelProto: input "observations" float32[batch, n, n, C], outputs "logits"
    float32[batch, A] and "value" float32[batch]; ValueError if `params` is not
    PolicyValueNet's."""
    import onnx
    from onnx import TensorProto, helper

    params = _float32_numpy(params)
    head, blocks = _check_layers(params, observation_shape, num_actions)
    graph = _Graph()
    x = _trunk(graph, params, blocks)
    heads = _dense_heads if head == "dense" else _pooled_heads
    logits, value = heads(graph, params, x)
    value = graph.op("Reshape", [value, graph.const("shape.batch", np.array([-1], np.int64))])
    graph.nodes.append(helper.make_node("Identity", [logits], ["logits"], name="logits"))
    graph.nodes.append(helper.make_node("Identity", [value], ["value"], name="value"))

    observations = ["batch", *observation_shape]
    onnx_graph = helper.make_graph(
        graph.nodes,
        name,
        [helper.make_tensor_value_info("observations", TensorProto.FLOAT, observations)],
        [
            helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", num_actions]),
            helper.make_tensor_value_info("value", TensorProto.FLOAT, ["batch"]),
        ],
        initializer=graph.weights,
    )
    model = helper.make_model(
        onnx_graph,
        opset_imports=[helper.make_opsetid("", OPSET)],
        producer_name="hexjax",
        doc_string="hexjax policy-value network: observations -> (logits, value)",
    )
    model.ir_version = IR_VERSION
    onnx.checker.check_model(model, full_check=True)
    return model


class _Graph:
    """ONNX nodes and initializers, written op by op, with the layers the network is made of."""

    def __init__(self):
        from onnx import helper, numpy_helper

        self._helper, self._numpy_helper = helper, numpy_helper
        self.nodes, self.weights = [], []
        self.batch_rows = self.const("shape.batch_rows", np.array([0, -1], np.int64))  # keep dim 0

    def op(self, kind, inputs, **attributes):
        output = f"{kind.lower()}_{len(self.nodes)}"
        self.nodes.append(self._helper.make_node(kind, inputs, [output], name=output, **attributes))
        return output

    def const(self, label, array):
        self.weights.append(self._numpy_helper.from_array(array, label))
        return label

    def conv(self, x, layer, label):
        kernel = layer["kernel"]  # Flax HWIO [kh, kw, in, out] -> ONNX OIHW [out, in, kh, kw]
        kh, kw = kernel.shape[:2]
        # Flax's "SAME" padding at stride 1: (k - 1) // 2 before, the rest after.
        pads = [(kh - 1) // 2, (kw - 1) // 2, kh - 1 - (kh - 1) // 2, kw - 1 - (kw - 1) // 2]
        w = self.const(f"{label}.kernel", np.ascontiguousarray(kernel.transpose(3, 2, 0, 1)))
        b = self.const(f"{label}.bias", layer["bias"])
        return self.op("Conv", [x, w, b], kernel_shape=[kh, kw], pads=pads, strides=[1, 1])

    def dense(self, x, layer, label):
        w = self.const(f"{label}.kernel", layer["kernel"])
        b = self.const(f"{label}.bias", layer["bias"])
        return self.op("Gemm", [x, w, b])  # x @ kernel + bias, as nn.Dense

    def flatten(self, x):
        # NCHW -> NHWC -> [batch, n * n * planes]: Flax's reshape of an NHWC array.
        return self.op("Reshape", [self.op("Transpose", [x], perm=[0, 2, 3, 1]), self.batch_rows])


def _trunk(g: _Graph, params, blocks: int):
    x = g.op("Transpose", ["observations"], perm=[0, 3, 1, 2])
    x = g.op("Relu", [g.conv(x, params["Conv_0"], "stem")])
    for i in range(blocks):
        block = params[f"_ResidualBlock_{i}"]
        y = g.conv(x, block["Conv_0"], f"block{i}.conv0")
        if "Dense_0" in block:  # global pooling: a bias per channel from the pooled features
            h = g.op("Relu", [y])
            pooled = g.op("Concat", [g.op("GlobalAveragePool", [h]), g.op("GlobalMaxPool", [h])],
                          axis=1)  # fmt: skip
            bias = g.dense(
                g.op("Reshape", [pooled, g.batch_rows]), block["Dense_0"], f"block{i}.pool"
            )
            axes = g.const(f"block{i}.pool.axes", np.array([2, 3], np.int64))
            y = g.op("Add", [y, g.op("Unsqueeze", [bias, axes])])
        y = g.conv(g.op("Relu", [y]), block["Conv_1"], f"block{i}.conv1")
        x = g.op("Relu", [g.op("Add", [x, y])])
    return x


def _dense_heads(g: _Graph, params, x):
    policy = g.flatten(g.op("Relu", [g.conv(x, params["Conv_1"], "policy.conv")]))
    logits = g.dense(policy, params["Dense_0"], "policy.dense")
    value = g.flatten(g.op("Relu", [g.conv(x, params["Conv_2"], "value.conv")]))
    value = g.op("Relu", [g.dense(value, params["Dense_1"], "value.hidden")])
    return logits, g.op("Tanh", [g.dense(value, params["Dense_2"], "value.out")])


def _pooled_heads(g: _Graph, params, x):
    # Mean and max over the board, [batch, 2 * channels].
    pooled = g.op("Concat", [g.op("GlobalAveragePool", [x]), g.op("GlobalMaxPool", [x])], axis=1)
    pooled = g.op("Reshape", [pooled, g.batch_rows])
    logits = g.flatten(g.conv(x, params["policy_cells"], "policy.cells"))
    if "policy_extra" in params:
        extra = g.dense(pooled, params["policy_extra"], "policy.extra")
        logits = g.op("Concat", [logits, extra], axis=1)
    value = g.op("Relu", [g.dense(pooled, params["value_hidden"], "value.hidden")])
    return logits, g.op("Tanh", [g.dense(value, params["value_out"], "value.out")])


def _float32_numpy(params):
    if isinstance(params, dict) or hasattr(params, "items"):
        return {key: _float32_numpy(value) for key, value in params.items()}
    return np.asarray(params, np.float32)


def _check_layers(params, observation_shape, num_actions: int) -> tuple[str, int]:
    """The head ("dense" or "pooled") and the number of residual blocks; ValueError unless
    `params` has exactly PolicyValueNet's layers for this observation shape and action count."""
    blocks = sum(key.startswith("_ResidualBlock_") for key in params)
    trunk = {"Conv_0", *(f"_ResidualBlock_{i}" for i in range(blocks))}
    head = "pooled" if "policy_cells" in params else "dense"
    expected = trunk | _HEADS[head]
    if head == "pooled" and "policy_extra" in params:
        expected.add("policy_extra")
    if set(params) != expected:
        raise ValueError(
            f"the parameters are not hexjax's policy-value network: layers {sorted(params)}"
        )
    planes = observation_shape[-1]
    if params["Conv_0"]["kernel"].shape[2] != planes:
        raise ValueError(f"the network reads {params['Conv_0']['kernel'].shape[2]} planes, "
                         f"the game observes {planes}")  # fmt: skip
    cells = observation_shape[0] * observation_shape[1]
    if head == "dense":
        scored = params["Dense_0"]["kernel"].shape[1]
    else:
        scored = cells + (
            params["policy_extra"]["kernel"].shape[1] if "policy_extra" in params else 0
        )
    if scored != num_actions:
        raise ValueError(f"the network scores {scored} actions, the game has {num_actions}")
    return head, blocks
