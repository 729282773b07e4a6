"""What `pip install batchdoku` brings along."""

import importlib.metadata
import re


def test_the_package_requires_what_pysparks_map_in_arrow_checks_for():
    # pyspark's mapInArrow refuses to run without pyarrow>=18 and
    # pandas>=2.2 (it checks both, though it hands over Arrow only), so
    # `pip install batchdoku pyspark` must bring them.
    required = {re.split(r"[<>=!~ ;\[]", r, maxsplit=1)[0].lower(): r for r in importlib.metadata.requires("batchdoku") or [] if "extra ==" not in r}
    assert {"numpy", "pyarrow", "pandas"} <= set(required), required
    assert ">=18" in required["pyarrow"] and ">=2.2" in required["pandas"], required
