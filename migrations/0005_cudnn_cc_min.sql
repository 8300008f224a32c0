-- cuDNN matrices before 8.5 state their GPU support as a floor ("SM 3.5
-- and later"), not a list: the floor is its own column, so cc_list only
-- ever holds compute capabilities.
ALTER TABLE cudnn_support ADD COLUMN cc_min TEXT NOT NULL DEFAULT '';
