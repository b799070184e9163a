pool
