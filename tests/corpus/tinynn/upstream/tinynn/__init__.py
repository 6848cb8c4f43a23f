from tinynn.core import initializer
from tinynn.core import layer
from tinynn.core import loss
from tinynn.core import model
from tinynn.core import net
from tinynn.core import optimizer

from tinynn.utils import data_iterator
from tinynn.utils import dataset
from tinynn.utils import downloader
from tinynn.utils import math
from tinynn.utils import metric
from tinynn.utils import seeder
from tinynn.utils import structured_param
