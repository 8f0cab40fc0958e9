"""Mirrors `torch.utils.tensorboard.writer`: `SummaryWriter` and its `FileWriter`."""
import os
import socket
import time
from datetime import datetime

from tensorboard.compat.proto.event_pb2 import Event, SessionLog
from tensorboard.summary.writer.event_file_writer import EventFileWriter

from . import hparams as _hparams
from . import summary


class FileWriter:
    """Mirrors `torch.utils.tensorboard.writer.FileWriter`: events to one event file."""

    def __init__(self, log_dir, max_queue=10, flush_secs=120, filename_suffix=""):
        self.event_writer = EventFileWriter(str(log_dir), max_queue, flush_secs,
                                            filename_suffix)

    def get_logdir(self):
        return self.event_writer.get_logdir()

    def add_event(self, event, step=None, walltime=None):
        event.wall_time = time.time() if walltime is None else walltime
        if step is not None:
            event.step = int(step)
        self.event_writer.add_event(event)

    def add_summary(self, summary, global_step=None, walltime=None):
        self.add_event(Event(summary=summary), global_step, walltime)

    def flush(self):
        self.event_writer.flush()

    def close(self):
        self.event_writer.close()

    def reopen(self):
        self.event_writer.reopen()


class SummaryWriter:
    """Mirrors `torch.utils.tensorboard.SummaryWriter`: scalars, histograms, images, text,
    figures and hyperparameters to event files under `log_dir` (default
    `runs/<date>_<host><comment>`), which TensorBoard reads. `add_graph` is not available (see
    docs/differences.md)."""

    def __init__(self, log_dir=None, comment="", purge_step=None, max_queue=10, flush_secs=120,
                 filename_suffix=""):
        if not log_dir:
            stamp = datetime.now().strftime("%b%d_%H-%M-%S")
            log_dir = os.path.join("runs", stamp + "_" + socket.gethostname() + comment)
        self.log_dir = log_dir
        self.purge_step = purge_step
        self.max_queue = max_queue
        self.flush_secs = flush_secs
        self.filename_suffix = filename_suffix
        self.file_writer = self.all_writers = None
        self._get_file_writer()

    def _get_file_writer(self):
        """The writer of `log_dir` (made again after `close`)."""
        if self.all_writers is None or self.file_writer is None:
            self.file_writer = FileWriter(self.log_dir, self.max_queue, self.flush_secs,
                                          self.filename_suffix)
            self.all_writers = {self.file_writer.get_logdir(): self.file_writer}
            if self.purge_step is not None:
                step, self.purge_step = self.purge_step, None
                self.file_writer.add_event(Event(step=step, file_version="brain.Event:2"))
                self.file_writer.add_event(Event(step=step, session_log=SessionLog(
                    status=SessionLog.START)))
        return self.file_writer

    def get_logdir(self):
        return self.log_dir

    def _add(self, proto, global_step, walltime):
        self._get_file_writer().add_summary(proto, global_step, walltime)

    def add_scalar(self, tag, scalar_value, global_step=None, walltime=None, new_style=False,
                   double_precision=False):
        self._add(summary.scalar(tag, scalar_value, new_style, double_precision),
                  global_step, walltime)

    def add_scalars(self, main_tag, tag_scalar_dict, global_step=None, walltime=None):
        """Each scalar to its own run, `<log_dir>/<main_tag>_<tag>`, under tag `main_tag`."""
        walltime = time.time() if walltime is None else walltime
        base = self._get_file_writer().get_logdir()
        for tag, value in tag_scalar_dict.items():
            path = os.path.join(base, main_tag.replace("/", "_") + "_" + tag)
            writer = self.all_writers.get(path)
            if writer is None:
                writer = self.all_writers[path] = FileWriter(
                    path, self.max_queue, self.flush_secs, self.filename_suffix)
            writer.add_summary(summary.scalar(main_tag, value), global_step, walltime)

    def add_tensor(self, tag, tensor, global_step=None, walltime=None):
        from tensorboard.compat.proto.summary_pb2 import Summary
        from tensorboard.util import tensor_util
        from .values import to_numpy
        proto = tensor_util.make_tensor_proto(to_numpy(tensor))
        self._add(Summary(value=[Summary.Value(tag=tag, tensor=proto)]), global_step, walltime)

    def add_histogram(self, tag, values, global_step=None, bins="tensorflow", walltime=None,
                      max_bins=None):
        self._add(summary.histogram(tag, values, bins, max_bins), global_step, walltime)

    def add_histogram_raw(self, tag, min, max, num, sum, sum_squares, bucket_limits,
                          bucket_counts, global_step=None, walltime=None):
        if len(bucket_limits) != len(bucket_counts):
            raise ValueError("len(bucket_limits) != len(bucket_counts), see the document.")
        self._add(summary.histogram_raw(tag, min, max, num, sum, sum_squares, bucket_limits,
                                        bucket_counts), global_step, walltime)

    def add_image(self, tag, img_tensor, global_step=None, walltime=None, dataformats="CHW"):
        self._add(summary.image(tag, img_tensor, dataformats), global_step, walltime)

    def add_images(self, tag, img_tensor, global_step=None, walltime=None, dataformats="NCHW"):
        self._add(summary.image(tag, img_tensor, dataformats), global_step, walltime)

    def add_figure(self, tag, figure, global_step=None, close=True, walltime=None):
        """A Matplotlib figure (or a list of them, side by side) as an image."""
        import numpy as np
        figures = figure if isinstance(figure, list) else [figure]
        arrays = [summary.figure_image(f) for f in figures]
        if close:
            import matplotlib.pyplot as plt
            for f in figures:
                plt.close(f)
        if isinstance(figure, list):
            self.add_images(tag, np.stack(arrays), global_step, walltime, "NCHW")
        else:
            self.add_image(tag, arrays[0], global_step, walltime, "CHW")

    def add_text(self, tag, text_string, global_step=None, walltime=None):
        self._add(summary.text(tag, text_string), global_step, walltime)

    def add_hparams(self, hparam_dict, metric_dict, hparam_domain_discrete=None, run_name=None,
                    global_step=None):
        """The run's hyperparameters and final metrics, in the run `<log_dir>/<run_name>`
        (default: the time now)."""
        exp, start, end = _hparams.hparams(hparam_dict, metric_dict, hparam_domain_discrete)
        path = os.path.join(self._get_file_writer().get_logdir(),
                            run_name or str(time.time()))
        with SummaryWriter(log_dir=path) as w:
            for proto in (exp, start, end):
                w.file_writer.add_summary(proto, global_step)
            for k, v in metric_dict.items():
                w.add_scalar(k, v, global_step)

    def add_graph(self, model, input_to_model=None, verbose=False, use_strict_trace=True):
        from ..._missing import NotAvailable
        raise NotAvailable("torch.utils.tensorboard.SummaryWriter.add_graph is not available "
                           "in torchlike yet (it traces the model with torch.jit.trace)")

    def flush(self):
        for w in (self.all_writers or {}).values():
            w.flush()

    def close(self):
        for w in (self.all_writers or {}).values():
            w.flush()
            w.close()
        self.file_writer = self.all_writers = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
