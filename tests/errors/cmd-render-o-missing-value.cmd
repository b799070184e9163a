render
