"""Pictures and human summaries: rendering scenes and motions, `info` details."""
