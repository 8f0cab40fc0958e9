"""The three summaries of one hyperparameter run, for TensorBoard's hparams plugin."""
from tensorboard.compat.proto.summary_pb2 import Summary, SummaryMetadata
from tensorboard.plugins.hparams import api_pb2, plugin_data_pb2

from . import values



def _value(v):
    """(protobuf Value, data type) of one hyperparameter; numbers (bools too) are float64."""
    from ..._core.tensor import Tensor
    if isinstance(v, (int, float)):
        return {"number_value": float(v)}, "DATA_TYPE_FLOAT64"
    if isinstance(v, str):
        return {"string_value": v}, "DATA_TYPE_STRING"
    if isinstance(v, Tensor):
        return {"number_value": float(values.to_numpy(v).reshape(-1)[0])}, "DATA_TYPE_FLOAT64"
    raise ValueError("value should be one of int, float, str, bool, or torch.Tensor")


def _summary(tag, data):
    meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(
        plugin_name="hparams", content=data.SerializeToString()))
    return Summary(value=[Summary.Value(tag=tag, metadata=meta)])


def hparams(hparam_dict, metric_dict, hparam_domain_discrete=None):
    """(experiment, session start, session end) summaries of one run."""
    if not isinstance(hparam_dict, dict) or not isinstance(metric_dict, dict):
        raise TypeError("hparam_dict and metric_dict should be dictionary.")
    domains = hparam_domain_discrete or {}
    if not isinstance(domains, dict):
        raise TypeError("parameter: hparam_domain_discrete should be a dictionary, nothing "
                        "logged.")
    for k, choices in domains.items():
        if k not in hparam_dict or not isinstance(choices, list) or \
                not all(isinstance(c, type(hparam_dict[k])) for c in choices):
            raise TypeError(f"parameter: hparam_domain_discrete[{k}] should be a list of same "
                            f"type as hparam_dict[{k}].")
    infos, start = [], plugin_data_pb2.SessionStartInfo()
    for k, v in hparam_dict.items():
        if v is None:
            continue
        val, kind = _value(v)
        for field, x in val.items():
            setattr(start.hparams[k], field, x)
        info = api_pb2.HParamInfo(name=k, type=api_pb2.DataType.Value(kind))
        if k in domains:
            info.domain_discrete.extend([next(iter(_value(c)[0].values()))
                                         for c in domains[k]])
        infos.append(info)
    metrics = [api_pb2.MetricInfo(name=api_pb2.MetricName(tag=k)) for k in metric_dict]
    experiment = api_pb2.Experiment(hparam_infos=infos, metric_infos=metrics)
    return (_summary("_hparams_/experiment",
                     plugin_data_pb2.HParamsPluginData(version=0, experiment=experiment)),
            _summary("_hparams_/session_start_info",
                     plugin_data_pb2.HParamsPluginData(version=0, session_start_info=start)),
            _summary("_hparams_/session_end_info", plugin_data_pb2.HParamsPluginData(
                version=0, session_end_info=plugin_data_pb2.SessionEndInfo(
                    status=api_pb2.Status.Value("STATUS_SUCCESS")))))
