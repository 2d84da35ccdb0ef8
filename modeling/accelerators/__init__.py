"""LogCA, LogCA^e and Accelerometer (thesis chapters 4-6): the analytical accelerator models, their
presets, calibration from timing tables, and the command line.
"""
