use super::*;

const LINEAR_NODE: &str = r#"{"target": "torch.ops.aten.linear.default",
 "inputs": [{"name": "input",  "arg": {"as_tensor": {"name": "x"}}, "kind": 1},
            {"name": "weight", "arg": {"as_tensor": {"name": "p_fc1_weight"}}, "kind": 1},
            {"name": "bias",   "arg": {"as_tensor": {"name": "p_fc1_bias"}}, "kind": 1}],
 "outputs": [{"as_tensor": {"name": "linear"}}],
 "metadata": {"stack_trace": "File \"make_models.py\", line 45, in forward\n    return self.fc2(x)",
              "nn_module_stack": "L__self__,,__main__.MLP;L__self__fc1,fc1,torch.nn.modules.linear.Linear"},
 "is_hop_single_tensor_return": null, "name": "linear", "a_future_field": [1, 2]}"#;

#[test]
fn node_reads_named_arguments_and_ignores_unknown_fields() {
    let node: Node = serde_json::from_str(LINEAR_NODE).unwrap();
    assert_eq!(node.target, "torch.ops.aten.linear.default");
    assert_eq!(node.name.as_deref(), Some("linear"));
    let names: Vec<_> = node.inputs.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["input", "weight", "bias"]);
    assert_eq!(node.inputs[1].arg.as_tensor_name(), Some("p_fc1_weight"));
    assert_eq!(node.inputs[0].kind, Some(argument_kind::POSITIONAL));
    assert_eq!(node.outputs[0].as_tensor_name(), Some("linear"));
}

#[test]
fn node_defaults_missing_optional_fields() {
    let node: Node = serde_json::from_str(
        r#"{"target": "t", "inputs": [{"name": "a", "arg": {"as_int": 3}}], "outputs": []}"#,
    )
    .unwrap();
    assert_eq!(node.inputs[0].kind, None);
    assert_eq!(node.inputs[0].arg, Argument::AsInt(3));
    assert!(node.metadata.is_empty());
    assert_eq!(node.name, None);
}

#[test]
fn union_keeps_unknown_keys_and_rejects_ambiguous_objects() {
    let arg: Argument =
        serde_json::from_str(r#"{"as_quantum_state": {"qubits": [1, 2]}}"#).unwrap();
    assert_eq!(arg, Argument::Unknown("as_quantum_state".into()));
    assert_eq!(arg.key(), "as_quantum_state");
    assert!(serde_json::from_str::<Argument>(r#"{}"#).is_err());
    assert!(serde_json::from_str::<Argument>(r#"{"as_int": 1, "as_bool": true}"#).is_err());
    assert!(serde_json::from_str::<Argument>(r#"{"as_int": "1"}"#).is_err());
}

#[test]
fn argument_kinds_round_trip() {
    let text = r#"[{"as_none":true},{"as_tensors":[{"name":"a"},{"name":"b"}]},{"as_ints":[1,-2]},
        {"as_float":"-Infinity"},{"as_floats":[0.5,"NaN"]},{"as_string":"tanh"},{"as_strings":["a"]},
        {"as_sym_int":{"as_name":"sym_size_int_1"}},{"as_sym_ints":[{"as_name":"s"},{"as_int":-1}]},
        {"as_scalar_type":13},{"as_memory_format":1},{"as_layout":7},{"as_device":{"type":"cpu","index":null}},
        {"as_bool":false},{"as_bools":[true]},{"as_sym_bool":{"as_bool":true}},
        {"as_optional_tensors":[{"as_tensor":{"name":"x"}},{"as_none":true}]},
        {"as_custom_obj":{"name":"obj","class_fqn":"__torch__.Foo"}},{"as_operator":"aten::add"},
        {"as_sym_float":{"as_float":1.5}},{"as_complex":{"real":1.0,"imag":"Infinity"}},
        {"as_nested_tensors":[[{"name":"a"}]]},{"as_int_lists":[[1],[2,3]]},{"as_float_lists":[[1.0]]},
        {"as_string_to_argument":{"k":{"as_int":1}}},{"as_optional_tensor":{"as_none":true}}]"#;
    let args: Vec<Argument> = serde_json::from_str(text).unwrap();
    assert!(!args.iter().any(|a| matches!(a, Argument::Unknown(_))));
    match &args[3] {
        Argument::AsFloat(v) => assert_eq!(v.0, f64::NEG_INFINITY),
        other => panic!("{other:?}"),
    }
    let again: Vec<Argument> =
        serde_json::from_str(&serde_json::to_string(&args).unwrap()).unwrap();
    assert_eq!(format!("{args:?}"), format!("{again:?}"));
}

#[test]
fn hop_subgraphs_nest() {
    let text = r#"{"target": "torch.ops.higher_order.cond", "inputs": [
        {"name": "", "arg": {"as_tensor": {"name": "gt"}}},
        {"name": "", "arg": {"as_graph": {"name": "true_graph_0", "graph": {"inputs": [{"as_tensor": {"name": "x"}}],
            "outputs": [{"as_tensor": {"name": "add"}}], "nodes": [{"target": "torch.ops.aten.add.Tensor",
            "inputs": [], "outputs": [{"as_tensor": {"name": "add"}}], "metadata": {}}],
            "tensor_values": {}, "sym_int_values": {}, "sym_bool_values": {}, "is_single_tensor_return": false}}}}],
        "outputs": [{"as_tensor": {"name": "cond"}}], "metadata": {}}"#;
    let node: Node = serde_json::from_str(text).unwrap();
    let sub = node.inputs[1].arg.as_graph().unwrap();
    assert_eq!(sub.name, "true_graph_0");
    assert_eq!(sub.graph.nodes[0].target, "torch.ops.aten.add.Tensor");
}

#[test]
fn tensor_meta_with_symbolic_size() {
    let text = r#"{"dtype": 7, "sizes": [{"as_expr": {"expr_str": "Symbol('s77', positive=True, integer=True)", "hint": {"as_int": 4}}},
        {"as_int": 4}], "requires_grad": false, "device": {"type": "cpu", "index": null},
        "strides": [{"as_int": 4}, {"as_int": 1}], "storage_offset": {"as_int": 0}, "layout": 7}"#;
    let meta: TensorMeta = serde_json::from_str(text).unwrap();
    assert_eq!(meta.dtype(), Some(DType::F32));
    assert_eq!(meta.sizes[0].hint(), Some(4));
    assert_eq!(meta.static_sizes(), None);
    let shape = meta.shape().unwrap();
    assert_eq!(shape[0].to_string(), "s77");
    assert_eq!(shape[1], Dim::Static(4));
    assert_eq!(meta.device.kind, "cpu");
}

#[test]
fn signature_specs() {
    let text = r#"{"input_specs": [
        {"parameter": {"arg": {"name": "p_w"}, "parameter_name": "w"}},
        {"buffer": {"arg": {"name": "b_offsets"}, "buffer_name": "offsets", "persistent": false}},
        {"tensor_constant": {"arg": {"name": "c_table"}, "tensor_constant_name": "table"}},
        {"constant_input": {"name": "n", "value": {"as_int": 3}}},
        {"user_input": {"arg": {"as_tensor": {"name": "x"}}}}],
      "output_specs": [{"buffer_mutation": {"arg": {"name": "add_"}, "buffer_name": "cache"}},
        {"user_output": {"arg": {"as_tensor": {"name": "out"}}}}]}"#;
    let sig: GraphSignature = serde_json::from_str(text).unwrap();
    assert!(
        matches!(&sig.input_specs[1], InputSpec::Buffer(b) if !b.persistent && b.buffer_name == "offsets")
    );
    assert!(
        matches!(&sig.output_specs[0], OutputSpec::BufferMutation(m) if m.buffer_name == "cache")
    );
}
