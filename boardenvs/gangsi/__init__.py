"""キョンシー (Gangsi): rules, tables and encoding of ``gangsi_v0``."""
