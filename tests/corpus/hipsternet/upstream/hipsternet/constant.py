eps = 1e-8
