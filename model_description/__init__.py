"""The catalogue of the FMU's variables and the modelDescription.xml generated from it.

    from model_description import build_catalogue, model_description_xml
    catalogue = build_catalogue(engine.load_event())
    xml = model_description_xml(catalogue, model_identifier="SimonCar", guid=..., generated_at=...)
"""
from .catalogue import (Binding, Catalogue, FIELDS, PARAMETERS, UNIT_CALCULATED,
                        UNIT_PARAMETERS, Variable, build_catalogue)
from .markdown import variable_table
from .writer import generation_time, model_description, model_description_xml

__all__ = ["Binding", "Catalogue", "FIELDS", "PARAMETERS", "UNIT_CALCULATED",
           "UNIT_PARAMETERS", "Variable", "build_catalogue", "generation_time",
           "model_description", "model_description_xml", "variable_table"]
