bom
