"""Frame → observation: board localization, orientation (čl. 2.4), square classification, occlusion and
the stabilizer; also the synthetic scene renderer (:mod:`vision.render`) used by tests, benchmarks and the
demo. Knows nothing of moves."""
