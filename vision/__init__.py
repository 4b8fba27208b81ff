"""Frame → observation: board localization, orientation (čl. 2.4), square classification, occlusion, stabilizer, and the synthetic scene renderer."""
