place
