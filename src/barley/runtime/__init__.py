"""Scale-out: :mod:`barley.runtime.parallel` parses one large input on every core of a machine,
:mod:`barley.runtime.distributed` many files on a Dask cluster; both give the bytes one process
gives."""
