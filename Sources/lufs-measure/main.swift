print("lufs-measure: not built yet")
