slice
