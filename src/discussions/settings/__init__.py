"""Where things live and what the configuration, personas and templates say."""
