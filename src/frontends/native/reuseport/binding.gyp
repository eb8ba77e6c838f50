{
  "targets": [
    {
      "target_name": "reuseport",
      "sources": ["reuseport.c"],
      "cflags": ["-O2", "-Wall", "-Wextra"]
    }
  ]
}
