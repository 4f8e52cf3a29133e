"""QAWS's references: what the monitors take as K1 and K2, read off the configuration alone."""
