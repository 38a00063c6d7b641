"""What happens to memory over time: confidence fading at read time (``decay``), the nightly
forgetting (``forgetting``) and the archive's layout and checks (``archive``)."""
