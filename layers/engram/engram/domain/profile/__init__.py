"""The profile's rules: how sure a source is (``trust``), what a statement does to what is believed
(``beliefs``) and the plan a store applies for one fact (``belief_plan``)."""
