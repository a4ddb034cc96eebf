"""Data: reading and writing data files as pattern counts, and sampling data from a network.

``dataset`` (:class:`Dataset`, the distinct observed rows and their counts, and the readers and
writers of data files), ``sampling`` (forward sampling of a network) and
``covariate_sampling`` (latent class data with covariates: the class a multinomial logit of
them, as latent class regression models it). The names of
``dataset`` are re-exported here: ``from hiddenbn.data import Dataset, read_data``.

May import: hiddenbn.errors, hiddenbn.util, hiddenbn.models.
"""

from hiddenbn.data.dataset import (COUNT_COLUMN, MISSING, DataFile, Dataset, DataTable,
                                   NumberedStates, pattern_counts, read_csv, read_data,
                                   read_dictionary, read_table, rows_frame, write_csv,
                                   write_rows_csv)

__all__ = ["COUNT_COLUMN", "MISSING", "DataFile", "DataTable", "Dataset", "NumberedStates",
           "pattern_counts", "read_csv", "read_data", "read_dictionary", "read_table",
           "rows_frame", "write_csv", "write_rows_csv"]
