__version__ = '1.12.1'
debug = False
cuda = '11.3'
git_version = '0123456789abcdef0123456789abcdef01234567'
hip = None
